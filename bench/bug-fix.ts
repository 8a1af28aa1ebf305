/**
 * One fix attempt's cost in the sandbox: a developer's fix request on demo/webshop
 * taken through the bug workflow's fix path (check who asked, one fixer turn with one write,
 * the CodeBuild runs of the repository's real checks (one build per check, side by side),
 * reading their results, the draft pull request, the posts in both threads). The model is
 * scripted, so the figures are the platform's own: state transitions (StateEntered events of
 * the fix path in the execution's history, those inside the builds' Map too), Lambda milliseconds (the conversation's cost ledger, before and after), and the
 * wall time of the build and of the whole path. Prints figures; asserts nothing.
 * Run: `npm run bench:bug-fix` (ROUNDS=3 by default).
 */
import { DEMO_BUG } from '../local/github/demo-webshop.ts';
import { FIX_PATH_STATES } from '../statemachines/bug-investigation/fix-path.ts';
import {
  bugIdFor,
  CHANNELS,
  DEVELOPER,
  messageIdOf,
  REPORTER,
  readsHistory,
  startBugHarness,
} from '../test/sandbox/bug-harness.ts';
import { submit, toolUse } from '../test/support/scripted-model.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const AT = `${DEMO_BUG.file}:${DEMO_BUG.line}`;
const BUG_LINE = '  const vat = vatFor(subtotal, options.region);';
const FIXED_LINE = '  const vat = vatFor(net, options.region);';
const FIX_STATES = new Set<string>(Object.values(FIX_PATH_STATES));

const h = await startBugHarness({ bugInvestigation: { repository: 'demo/webshop' } });

async function until<T>(probe: () => Promise<T>, accept: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 3000; i++) {
    const value = await probe();
    if (accept(value)) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out');
}
const ledgerOf = async (bug: string) => (await h.store.getConversation(bug, { consistent: true }))?.ledger;

const rows: { transitions: number; lambdaMs: number; buildMs: number; pathMs: number }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const report = await h.post(
    CHANNELS.reports,
    REPORTER,
    `Checkout totals are too high with a discount code, round ${round}: VAT looks wrong, steps: apply SAVE10 in DE.`,
  );
  const bug = bugIdFor(report);
  h.script(bug, [
    readsHistory(bug),
    submit({
      action: 'post_findings',
      summary: `VAT on the subtotal at ${AT}.`,
      confidence: 90,
      severity: 'high',
    }),
  ]);
  const summaries = await until(
    () => h.messages(CHANNELS.summaries),
    (all) => all.some((m) => m.bot && Number(m.ts) > Number(report) && m.text.includes(AT)),
  );
  const thread =
    summaries.find((m) => m.bot && Number(m.ts) > Number(report) && m.text.includes(AT))?.ts ?? '';
  await until(
    () => h.store.getConversation(bug, { consistent: true }),
    (c) => c?.phase === 'awaiting_dev' && c.wait !== undefined,
  );
  const before = await ledgerOf(bug);
  h.script(bug, [
    readsHistory(bug),
    // The model cites the developer's request by its id; the workflow checks who sent it.
    (request) =>
      submit({
        action: 'fix_requested',
        fix_request: messageIdOf(request, DEVELOPER),
        summary: `VAT on the subtotal at ${AT}.`,
        confidence: 90,
        severity: 'high',
        fix: { description: 'Charge VAT on the net amount.' },
      }),
    toolUse('write_file', {
      path: DEMO_BUG.file,
      diff: `--- a/${DEMO_BUG.file}\n+++ b/${DEMO_BUG.file}\n@@ -${DEMO_BUG.line},1 +${DEMO_BUG.line},1 @@\n-${BUG_LINE}\n+${FIXED_LINE}\n`,
    }),
    submit({ action: 'fix_written', summary: `Pass net at ${AT}.` }),
  ]);
  await h.post(CHANNELS.summaries, DEVELOPER, 'Please fix it and open a PR', thread);
  await until(
    async () => (await h.messages(CHANNELS.reports, report)).map((m) => m.text),
    (texts) => texts.some((t) => t.includes('pull request')),
  );
  await until(
    () => h.store.getConversation(bug, { consistent: true }),
    (c) => c?.phase === 'awaiting_dev' && c.wait !== undefined,
  );
  const after = await ledgerOf(bug);
  const execution = await h.execution(bug);
  const entered = execution.events.filter(
    (e) =>
      e.type.endsWith('StateEntered') &&
      (FIX_STATES.has(e.stateName ?? '') || (e.stateName ?? '').startsWith(`${FIX_PATH_STATES.buildFix}: `)),
  );
  // By the end of the event's type: the build is a Map of one build per check ("MapStateEntered").
  const at = (name: string, type: string) =>
    Date.parse(execution.events.find((e) => e.stateName === name && e.type.endsWith(type))?.timestamp ?? '');
  rows.push({
    transitions: entered.length,
    lambdaMs: (after?.lambdaMs ?? 0) - (before?.lambdaMs ?? 0),
    buildMs: at(FIX_PATH_STATES.buildFix, 'StateExited') - at(FIX_PATH_STATES.buildFix, 'StateEntered'),
    pathMs:
      at(FIX_PATH_STATES.postPullRequestToReporter, 'TaskStateExited') -
      at(FIX_PATH_STATES.checkFixRequest, 'TaskStateEntered'),
  });
}
await h.stop();

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
console.log(`bug fix path, one attempt (green build), ${ROUNDS} rounds, sandbox, scripted model`);
console.log('round  transitions  lambda ms (ledger)  build ms  path ms');
for (const [i, r] of rows.entries()) {
  console.log(
    `${String(i + 1).padStart(5)}  ${String(r.transitions).padStart(11)}  ${String(r.lambdaMs).padStart(18)}  ${String(r.buildMs).padStart(8)}  ${String(r.pathMs).padStart(7)}`,
  );
}
console.log(
  `median ${median(rows.map((r) => r.transitions))} transitions, ${median(rows.map((r) => r.lambdaMs))} Lambda ms, build ${median(rows.map((r) => r.buildMs))} ms, path ${median(rows.map((r) => r.pathMs))} ms`,
);
