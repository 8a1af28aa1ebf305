/**
 * `npm run eval:from-feedback -- <feedback.jsonl> [--out DIR]`: one case skeleton (JSON, in the
 * cases' shape, truth fields marked TODO) per down-voted answer of the feedback export, written
 * to DIR (default eval/cases/drafts/). A person completes each and adds it to eval/cases/.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { skeletonsFrom } from '../eval/from-feedback.ts';

const { values, positionals } = parseArgs({ options: { out: { type: 'string' } }, allowPositionals: true });
const [file] = positionals;
if (!file) {
  console.error('usage: npm run eval:from-feedback -- <feedback.jsonl> [--out DIR]');
  process.exit(2);
}
const { skeletons, skipped, errors } = skeletonsFrom(readFileSync(file, 'utf8'));
const out = values.out ?? join('eval', 'cases', 'drafts');
mkdirSync(out, { recursive: true });
for (const s of skeletons) {
  const path = join(out, `${s.id.replace(/[^A-Za-z0-9_-]+/g, '_')}.json`);
  writeFileSync(path, `${JSON.stringify(s, null, 2)}\n`);
  console.log(`wrote ${path} (to complete: ${s.todo.join(', ')})`);
}
for (const e of errors) console.error(`skipped ${e}`);
console.log(
  `${skeletons.length} skeletons, ${skipped} lines skipped (up-votes, repeats), ${errors.length} unreadable`,
);
if (errors.length > 0) process.exitCode = 1;
