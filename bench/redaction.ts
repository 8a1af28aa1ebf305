import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PII_CLASSES, RedactionSettings, Redactor } from '../lambdas/redaction/index.ts';
import { loghubDir, loghubPresent, SYSTEMS } from '../test/log-analysis/loghub.ts';

/**
 * Over-redaction on real logs: the share of lines the redaction layer alters on the Loghub 2k
 * samples (Zhu et al., ISSRE 2023; https://github.com/logpai/loghub), read in place from
 * `<repo>/../shared/data/loghub/` or `$LOGHUB_DIR`, never copied into this repository. These
 * logs hold no credentials, so every secret found is a false positive; personal data is judged
 * by the examples printed (IP addresses are real there, e-mail addresses and cards are not).
 * Printed for the defaults (secrets and cards) and with every class on.
 */

if (!loghubPresent()) {
  console.error(`Loghub data not found in ${loghubDir()} (set LOGHUB_DIR)`);
  process.exit(1);
}

const PLACEHOLDER = /<(secret|pii):([a-z0-9-]+)#[0-9a-f]{4}>/g;

/**
 * What an investigation follows from line to line: block, application, container and task ids,
 * UUIDs, hex hashes and session ids (8 hex digits or more, `0x` or not), and durations with a
 * unit. Each one in an altered line must still be there after the layer.
 */
const KEPT = [
  /\bblk_-?\d+/g,
  /\b(?:application|appattempt|container|attempt|job|task)_[\d_]+(?:_[mr]_\d+)?/g,
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  /\b(?:0x)?[0-9a-f]{8,}\b/gi,
  /\b\d+(?:\.\d+)?\s?(?:ms|s|sec|secs|seconds|min)\b/g,
];

async function measure(label: string, settings: RedactionSettings) {
  console.log(`\n## ${label} (pii: ${settings.pii.join(', ') || 'none'})`);
  console.log('system | lines | altered | share | kinds | ms');
  let allLines = 0;
  let allAltered = 0;
  let kept = 0;
  let lost = 0;
  const lostExamples: string[] = [];
  const examples = new Map<string, string[]>();
  for (const system of SYSTEMS) {
    const text = readFileSync(join(loghubDir(), `${system.name}_2k.log`), 'utf8').trimEnd();
    const lines = text.split('\n');
    const started = performance.now();
    const redacted = (await new Redactor('bench', settings).redact(text)).text.split('\n');
    const ms = performance.now() - started;
    const kinds = new Map<string, number>();
    let altered = 0;
    redacted.forEach((line, index) => {
      if (line === lines[index]) return;
      altered += 1;
      for (const pattern of KEPT)
        for (const [token] of (lines[index] ?? '').matchAll(pattern)) {
          if (line.includes(token)) kept += 1;
          else if (++lost <= 10) lostExamples.push(`${system.name}: ${token} in ${line.slice(0, 160)}`);
        }
      for (const match of line.matchAll(PLACEHOLDER)) {
        const kind = `${match[1]}:${match[2]}`;
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        const seen = examples.get(kind) ?? [];
        if (seen.length < 3) seen.push(`${system.name}: ${line.slice(0, 160)}`);
        examples.set(kind, seen);
      }
    });
    allLines += lines.length;
    allAltered += altered;
    const kindText = [...kinds].map(([kind, count]) => `${kind} ${count}`).join(', ') || '-';
    console.log(
      `${system.name} | ${lines.length} | ${altered} | ${((100 * altered) / lines.length).toFixed(2)}% | ${kindText} | ${ms.toFixed(0)}`,
    );
  }
  console.log(`all | ${allLines} | ${allAltered} | ${((100 * allAltered) / allLines).toFixed(2)}%`);
  console.log(`ids, hashes and durations in the altered lines: ${kept} kept, ${lost} lost`);
  for (const line of lostExamples) console.log(`  lost ${line}`);
  for (const [kind, lines] of examples) {
    console.log(`\n${kind}, e.g. (as redacted):`);
    for (const line of lines) console.log(`  ${line}`);
  }
}

await measure('defaults', RedactionSettings.parse({}));
await measure('every class', RedactionSettings.parse({ pii: [...PII_CLASSES] }));
