/**
 * Synthesizes the default modules' template in a process of its own, for the sandbox's
 * template cache (local/template-cache.ts): aws-cdk-lib and the built stack then never occupy
 * the sandbox's memory (about 350 MiB of resident memory it would keep for good).
 * Reads `{ config }` as JSON on standard input, writes the template to the file named by its
 * argument, and on failure prints `{ "error": { "name", "message" } }` and exits with 1.
 */
import { writeFileSync } from 'node:fs';
import { synthesizeTemplate } from '../infra/synth.ts';
import { WORKFLOW_MODULES } from '../statemachines/index.ts';

const target = process.argv[2];
let input = '';
for await (const chunk of process.stdin) input += String(chunk);
try {
  if (target === undefined) throw new Error('usage: synth-template.ts <output file>');
  const { config } = JSON.parse(input) as { config?: Record<string, unknown> };
  const template = synthesizeTemplate({ modules: WORKFLOW_MODULES, ...(config ? { config } : {}) });
  writeFileSync(target, JSON.stringify(template));
} catch (error) {
  const { name, message } = error instanceof Error ? error : new Error(String(error));
  process.stdout.write(JSON.stringify({ error: { name, message } }));
  process.exitCode = 1;
}
