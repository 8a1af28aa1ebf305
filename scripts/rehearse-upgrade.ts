/**
 * `npm run rehearse-upgrade -- --from <git ref>`: conversations of every workflow, in every kind
 * of wait, started on the release at <ref>, carried across an upgrade to this checkout's code on
 * the same sandbox state, and driven to their end (local/rehearsal/rehearse.ts). Prints one line
 * per conversation; exits 1 when one fails, naming the field it could not read. A conversation
 * whose feature the release at <ref> does not have is not rehearsed, and its line says so (SKIP).
 *
 *   npm run rehearse-upgrade -- --from v1.4.0
 *   npm run rehearse-upgrade -- --from "$(cat .ci/previous-release)"
 *
 * With `--rename-field old=new` it rehearses instead against a deliberately incompatible
 * release (this checkout's HEAD with that state field renamed in its code,
 * local/rehearsal/incompatible-release.ts) and exits 0 only when the rehearsal fails on that
 * field: the proof that it catches such a change.
 *
 *   npm run rehearse-upgrade -- --from HEAD --rename-field turnContext=turnCtx --only bug_investigation:reporter
 */
import { parseArgs } from 'node:util';
import type { RehearsedConversation } from '../local/rehearsal/conversations.ts';
import { failedOnField, incompatibleRelease, parseRename } from '../local/rehearsal/incompatible-release.ts';
import { rehearseUpgrade } from '../local/rehearsal/rehearse.ts';
import { REHEARSED_CONVERSATIONS } from '../local/rehearsal/rehearsed-conversations.ts';
import { failures, verdictLine } from '../local/rehearsal/verdicts.ts';

const USAGE = `usage: npm run rehearse-upgrade -- --from <git ref> [--only <workflow>[:<wait>]]... [--every-wait] [--rename-field <old>=<new>]
  --from           the release to upgrade from (a tag, a branch or a commit of this repository)
  --every-wait     fail when a conversation is not rehearsed because the release lacks its feature
                   (CI: the previous release must carry every kind of wait)
  --only           rehearse only these conversations (repeatable), e.g. bug_investigation:reporter
  --rename-field   upgrade to this checkout's HEAD with a state field renamed, and pass only if the
                   rehearsal fails on that field`;

/** The conversations `only` names (all when it names none); throws on a name that matches nothing. */
function chosen(only: readonly string[]): readonly RehearsedConversation[] {
  if (only.length === 0) return REHEARSED_CONVERSATIONS;
  return only.flatMap((name) => {
    const [workflow, wait] = name.split(':');
    const matched = REHEARSED_CONVERSATIONS.filter(
      (c) => c.workflow === workflow && (wait === undefined || c.wait === wait),
    );
    if (matched.length === 0) {
      const known = REHEARSED_CONVERSATIONS.map((c) => `${c.workflow}:${c.wait}`).join(', ');
      throw new Error(`--only ${name} names no rehearsed conversation (there are: ${known})`);
    }
    return matched;
  });
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      from: { type: 'string' },
      only: { type: 'string', multiple: true, default: [] },
      'every-wait': { type: 'boolean', default: false },
      'rename-field': { type: 'string' },
    },
    strict: true,
  });
  if (!values.from) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const log = (line: string) => process.stderr.write(`[rehearsal] ${line}\n`);
  const conversations = chosen(values.only);
  const rename = values['rename-field'] === undefined ? undefined : parseRename(values['rename-field']);
  const release = rename === undefined ? undefined : incompatibleRelease(process.cwd(), rename);
  if (rename && release)
    log(
      `upgrading to HEAD with ${rename.from} renamed ${rename.to} in ${release.files.length} file(s): ${release.dir}`,
    );
  try {
    const verdicts = await rehearseUpgrade({
      repo: release?.dir ?? process.cwd(),
      from: values.from,
      conversations,
      log,
    });
    for (const verdict of verdicts) process.stdout.write(`${verdictLine(verdict)}\n`);
    const failed = failures(verdicts);
    const skipped = verdicts.filter((verdict) => verdict.stage === 'skip');
    const passed = verdicts.filter((verdict) => verdict.ok);
    process.stdout.write(
      `${passed.length} of ${verdicts.length} conversations carried across the upgrade from ${values.from}${
        skipped.length > 0 ? `; ${skipped.length} not rehearsed, ${values.from} lacks their feature` : ''
      }\n`,
    );
    if (values['every-wait'] && skipped.length > 0)
      process.stderr.write(`--every-wait: ${skipped.length} conversation(s) not rehearsed\n`);
    if (rename === undefined)
      return failed.length > 0 || (values['every-wait'] && skipped.length > 0) ? 1 : 0;
    const caught = failedOnField(verdicts, rename);
    process.stdout.write(
      caught
        ? `the rehearsal caught the incompatible change: every failure names ${rename.to}\n`
        : `the rehearsal did not catch the renamed field ${rename.from} -> ${rename.to}: it must fail, naming it\n`,
    );
    return caught ? 0 : 1;
  } finally {
    release?.remove();
  }
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
