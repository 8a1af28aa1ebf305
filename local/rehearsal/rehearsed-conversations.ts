import {
  conversationStartedBy,
  endsNormally,
  type RehearsedConversation,
  type SandboxDriver,
  type Started,
  waitsAt,
} from './conversations.ts';

/**
 * The conversations an upgrade rehearsal drives, one per kind of wait of every workflow the demo
 * model reaches, each with how it gets there on the old release and how it ends on the new one.
 */

const REPORTS = 'C_BUG_REPORTS';
const DEVELOPERS = 'C_DEVELOPERS';
const INCIDENTS = 'C_INCIDENTS';
const SUMMARIES = 'C_BUG_SUMMARIES';
/** Developers' replies at most before a bug conversation must have continued as new. */
const MAX_TURNS_TO_HAND_OVER = 4;
const ON_CALL = 'U_ONCALL';
const GENERAL = 'C_GENERAL';
const REPORTER = 'U_REPORTER';
const WAIT_FOR_REPORTER = 'Wait for reporter';
const WAIT_FOR_DEVELOPERS = 'Wait for developers';
const WAIT_FOR_ANSWER = 'Wait for answer';
const DEVELOPER = 'U_DEV';
const PIPELINE_REPO = 'demo/webshop';
/** The line of the demo repository where its planted bug is (a developer's answer cites it). */
const PLANTED_BUG = 'src/checkout.ts:44';
const DETAILED_REPORT =
  'Checkout totals are too high with a discount code: the VAT looks wrong, steps: add 2 T-shirts, apply SAVE10, region DE.';

async function report(driver: SandboxDriver, text: string): Promise<Started> {
  const ts = await driver.post(REPORTS, REPORTER, text);
  const { id } = await conversationStartedBy(driver, REPORTS, ts);
  return { id, channel: REPORTS, threadTs: ts };
}

/** The reporter withdraws the report: the bug conversation closes. */
async function withdraw(driver: SandboxDriver, started: Started): Promise<void> {
  await driver.post(REPORTS, REPORTER, 'never mind', started.threadTs);
  await endsNormally(driver, started.id);
}

/** A detailed report, once its findings are posted and the conversation waits for the developers. */
async function reportedToDevelopers(driver: SandboxDriver) {
  const started = await report(driver, DETAILED_REPORT);
  await waitsAt(driver, started.id, WAIT_FOR_DEVELOPERS);
  const findings = await driver.waitFor(`the findings thread of ${started.id}`, async () =>
    (await driver.conversations())
      .find((c) => c.id === started.id)
      ?.anchors.find((anchor) => anchor.channel === SUMMARIES),
  );
  return { started, findings };
}

/** The bot's last message in a thread that has buttons, once there is one. */
async function buttonsIn(driver: SandboxDriver, channel: string, threadTs: string, what: string) {
  const message = await driver.waitFor(what, async () =>
    (await driver.messages(channel, threadTs))
      .filter((m) => m.bot && m.blocks?.some((b) => b.type === 'actions'))
      .at(-1),
  );
  return { message, buttons: message.blocks?.find((b) => b.type === 'actions')?.elements ?? [] };
}

/** Resolves once one of the conversation's running executions (a child's) waits in the Wait state `waitState`. */
async function childWaitsAt(driver: SandboxDriver, id: string, waitState: string): Promise<void> {
  await driver.waitFor(`a child of ${id} to wait in '${waitState}'`, async () => {
    for (const { name, status } of await driver.executionsOf(id)) {
      if (status !== 'RUNNING') continue;
      const last = (await driver.execution(name)).events.at(-1);
      if (last?.type === 'WaitStateEntered' && last.stateName === waitState) return true;
    }
    return undefined;
  });
}

/** The conversations of every workflow in every kind of wait the demo model reaches. */
export const REHEARSED_CONVERSATIONS: readonly RehearsedConversation[] = [
  {
    workflow: 'bug_investigation',
    wait: 'reporter',
    async start(driver) {
      const started = await report(driver, 'something is broken');
      await waitsAt(driver, started.id, WAIT_FOR_REPORTER);
      return started;
    },
    async finish(driver, started) {
      await driver.post(
        REPORTS,
        REPORTER,
        'On Safari 17 checkout shows a 500 after I click Pay',
        started.threadTs,
      );
      await waitsAt(driver, started.id, WAIT_FOR_DEVELOPERS);
      await withdraw(driver, started);
    },
  },
  {
    workflow: 'bug_investigation',
    wait: 'developers',
    async start(driver) {
      const started = await report(driver, DETAILED_REPORT);
      await waitsAt(driver, started.id, WAIT_FOR_DEVELOPERS);
      return started;
    },
    finish: withdraw,
  },
  {
    workflow: 'bug_investigation',
    wait: 'mid-continue-as-new',
    async start(driver) {
      // The rehearsal's configuration hands a bug conversation over after a few turns: developers'
      // replies in the findings thread run turns until an execution continues as new, and the
      // new one waits for the developers.
      const { started, findings } = await reportedToDevelopers(driver);
      for (let reply = 1; (await driver.executionsOf(started.id)).length < 2; reply++) {
        if (reply > MAX_TURNS_TO_HAND_OVER) throw new Error(`${started.id} did not continue as new`);
        await driver.post(SUMMARIES, 'U_DEV', `does it also happen on Firefox ${reply}?`, findings.threadTs);
        await waitsAt(driver, started.id, WAIT_FOR_DEVELOPERS, reply + 1);
      }
      return started;
    },
    finish: withdraw,
  },
  {
    workflow: 'bug_investigation',
    wait: 'pending fix',
    async start(driver) {
      // A developer asks for the fix in the findings thread: the fixer writes it, the build
      // passes, the pull request opens, and the conversation waits for the developers again.
      const { started, findings } = await reportedToDevelopers(driver);
      await driver.post(SUMMARIES, DEVELOPER, 'Please fix it and open a PR', findings.threadTs);
      await waitsAt(driver, started.id, WAIT_FOR_DEVELOPERS, 2);
      return started;
    },
    finish: withdraw,
  },
  {
    workflow: 'incident_investigation',
    wait: 'approval',
    async start(driver) {
      await driver.command(INCIDENTS, ON_CALL, '/investigate', 'checkout latency');
      const conversation = await driver.waitFor('the incident investigation', async () =>
        (await driver.conversations()).find(
          (c) => c.workflow === 'incident_investigation' && c.anchors.length > 0,
        ),
      );
      await waitsAt(driver, conversation.id, 'Wait for step approval');
      const anchor = conversation.anchors.find((a) => a.channel === INCIDENTS) ?? conversation.anchors[0];
      return { id: conversation.id, channel: anchor?.channel ?? INCIDENTS, threadTs: anchor?.threadTs ?? '' };
    },
    async finish(driver, started) {
      // On call rejects the step it is asked to approve: the plan stops there, the incident closes.
      const asking = await driver.waitFor('the step approval message', async () =>
        (await driver.messages(started.channel, started.threadTs))
          .filter((m) => m.bot && m.blocks?.some((b) => b.type === 'actions'))
          .at(-1),
      );
      const buttons = asking.blocks?.find((b) => b.type === 'actions')?.elements ?? [];
      const reject = buttons.find((b) => /reject/i.test(b.text?.text ?? b.value)) ?? buttons.at(-1);
      if (!reject) throw new Error(`the step approval message ${asking.ts} has no buttons`);
      await driver.press(started.channel, ON_CALL, asking.ts, reject);
      await endsNormally(driver, started.id);
    },
  },
  {
    workflow: 'requirements_interview',
    wait: 'interview question',
    async start(driver) {
      const ts = await driver.post(GENERAL, 'U_ALICE', '<@U_BOT> idea: a shared calendar for meeting rooms');
      const { id } = await conversationStartedBy(driver, GENERAL, ts);
      await waitsAt(driver, id, WAIT_FOR_ANSWER);
      return { id, channel: GENERAL, threadTs: ts };
    },
    async finish(driver, started) {
      await driver.post(GENERAL, 'U_ALICE', 'Office staff, about 200 people', started.threadTs);
      await waitsAt(driver, started.id, WAIT_FOR_ANSWER, 2);
      await driver.post(GENERAL, 'U_ALICE', 'Book a room and see who is in it', started.threadTs);
      await endsNormally(driver, started.id);
    },
  },
  {
    workflow: 'issue_pipeline',
    wait: 'question to people',
    async start(driver) {
      // An issue whose words lead the demo analyst to a file with nothing it knows how to fix:
      // the writer asks people what to change, and the pipeline waits for their answer.
      const issue = await driver.openIssue(PIPELINE_REPO, {
        title: 'The catalog should list products alphabetically',
        body: 'The product catalog lists items in insertion order; customers expect alphabetical order.',
        labels: ['agent'],
      });
      const conversation = await driver.waitFor(`the pipeline of issue #${issue}`, async () =>
        (await driver.conversations()).find((c) =>
          c.anchors.some((a) => a.channel === `github:${PIPELINE_REPO}` && a.threadTs === String(issue)),
        ),
      );
      await waitsAt(driver, conversation.id, 'Wait for people');
      // Its thread in Slack is anchored once the pipeline posted its checklist there.
      const thread = (await driver.conversations())
        .find((c) => c.id === conversation.id)
        ?.anchors.find((a) => a.channel === DEVELOPERS);
      if (!thread) throw new Error(`${conversation.id} has no thread in ${DEVELOPERS}`);
      return { id: conversation.id, channel: DEVELOPERS, threadTs: thread.threadTs };
    },
    async finish(driver, started) {
      // A developer points the writer at the planted bug: it fixes it, the build and the review
      // pass, and the committer opens the pull request.
      await driver.post(DEVELOPERS, DEVELOPER, `Look at ${PLANTED_BUG} instead.`, started.threadTs);
      await endsNormally(driver, started.id);
    },
  },
  {
    workflow: 'bug_investigation',
    wait: 'SLA escalation',
    startsAlone: true,
    async start(driver) {
      // A turn that never submits ends in the stand-in escalation: the developers are asked to
      // take over, on call is paged, and the SLA tracking child waits for the acknowledgement.
      await driver.modelFault({ kind: 'never_submits', count: 1_000 });
      try {
        const started = await report(driver, DETAILED_REPORT);
        await waitsAt(driver, started.id, WAIT_FOR_DEVELOPERS);
        await childWaitsAt(driver, started.id, 'Wait for acknowledgement');
        return started;
      } finally {
        await driver.modelFault(undefined);
      }
    },
    async finish(driver, started) {
      // On call acknowledges the escalation; the tracking sees it at its deadline and ends.
      const escalation = await driver.waitFor(`the escalation thread of ${started.id}`, async () =>
        (await driver.conversations())
          .find((c) => c.id === started.id)
          ?.anchors.find((a) => a.channel === DEVELOPERS),
      );
      const { message, buttons } = await buttonsIn(
        driver,
        DEVELOPERS,
        escalation.threadTs,
        'the escalation message',
      );
      const acknowledge = buttons.find((b) => /acknowledge/i.test(b.text?.text ?? b.value));
      if (!acknowledge) throw new Error(`the escalation message ${message.ts} has no Acknowledge button`);
      await driver.press(DEVELOPERS, ON_CALL, message.ts, acknowledge);
      await withdraw(driver, started);
    },
  },
];
