/**
 * `npm run rehearse-upgrade -- --from <git ref>`: conversations of every workflow, in every kind
 * of wait, started on the release at <ref>, carried across an upgrade to this checkout's code on
 * the same sandbox state, and driven to their end (local/rehearsal/rehearse.ts). Prints one line
 * per conversation; exits 1 when one fails, naming the field it could not read.
 *
 *   npm run rehearse-upgrade -- --from v1.4.0
 *   npm run rehearse-upgrade -- --from "$(cat .ci/previous-release)"
 */
import { parseArgs } from 'node:util';
import { rehearseUpgrade } from '../local/rehearsal/rehearse.ts';
import { verdictLine } from '../local/rehearsal/verdicts.ts';

const USAGE = `usage: npm run rehearse-upgrade -- --from <git ref>
  --from   the release to upgrade from (a tag, a branch or a commit of this repository)`;

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { from: { type: 'string' } }, strict: true });
  if (!values.from) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const verdicts = await rehearseUpgrade({
    repo: process.cwd(),
    from: values.from,
    log: (line) => process.stderr.write(`[rehearsal] ${line}\n`),
  });
  for (const verdict of verdicts) process.stdout.write(`${verdictLine(verdict)}\n`);
  const failed = verdicts.filter((verdict) => !verdict.ok);
  process.stdout.write(
    `${verdicts.length - failed.length} of ${verdicts.length} conversations carried across the upgrade from ${values.from}\n`,
  );
  return failed.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `rehearse-upgrade: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`,
    );
    process.exit(1);
  },
);
