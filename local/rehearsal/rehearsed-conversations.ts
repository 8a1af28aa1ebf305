import {
  buttonsIn,
  childWaitsAt,
  conversationStartedBy,
  endsNormally,
  hasEntered,
  pressOnApproval,
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
const WAIT_FOR_STEP_APPROVAL = 'Wait for step approval';
const DEVELOPER = 'U_DEV';
const PIPELINE_REPO = 'demo/webshop';
/**
 * The `retry-after` of the model's rate limit that holds an incident's turn for on call's Stop:
 * the longest the client waits out (`agentLimits.maxRetryAfterSeconds`' default), not a failure.
 */
const RATE_LIMITED_SECONDS = 30;
/** The file of the demo repository where its planted bug is: every fix the demo model writes changes it. */
const PLANTED_BUG_FILE = 'src/checkout.ts';
/** The line of the demo repository where its planted bug is (a developer's answer cites it). */
const PLANTED_BUG = `${PLANTED_BUG_FILE}:44`;
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

/** The pipeline a labelled issue of the demo repository started, once its Slack thread is anchored. */
async function pipelineOf(driver: SandboxDriver, issue: { title: string; body: string }): Promise<Started> {
  const number = await driver.openIssue(PIPELINE_REPO, { ...issue, labels: ['agent'] });
  const conversation = await driver.waitFor(`the pipeline of issue #${number}`, async () =>
    (await driver.conversations()).find((c) =>
      c.anchors.some((a) => a.channel === `github:${PIPELINE_REPO}` && a.threadTs === String(number)),
    ),
  );
  // Its thread in Slack is anchored once the pipeline posted its checklist there.
  const thread = await driver.waitFor(`the Slack thread of ${conversation.id}`, async () =>
    (await driver.conversations())
      .find((c) => c.id === conversation.id)
      ?.anchors.find((a) => a.channel === DEVELOPERS),
  );
  return { id: conversation.id, channel: DEVELOPERS, threadTs: thread.threadTs };
}

/**
 * `/investigate checkout latency` by on call, once the investigation is anchored in its
 * incident thread.
 */
async function investigation(driver: SandboxDriver): Promise<Started> {
  const known = new Set((await driver.conversations()).map((c) => c.id));
  await driver.command(INCIDENTS, ON_CALL, '/investigate', 'checkout latency');
  const conversation = await driver.waitFor('the incident investigation', async () =>
    (await driver.conversations()).find(
      (c) => c.workflow === 'incident_investigation' && !known.has(c.id) && c.anchors.length > 0,
    ),
  );
  const anchor = conversation.anchors.find((a) => a.channel === INCIDENTS) ?? conversation.anchors[0];
  return { id: conversation.id, channel: anchor?.channel ?? INCIDENTS, threadTs: anchor?.threadTs ?? '' };
}

/** On call rejects the remediation step it is asked to approve: the plan stops there, the incident closes. */
async function rejectStep(driver: SandboxDriver, started: Started): Promise<void> {
  const { message, buttons } = await buttonsIn(
    driver,
    started.channel,
    started.threadTs,
    'the step approval message',
  );
  const reject = buttons.find((b) => /reject/i.test(b.text?.text ?? b.value)) ?? buttons.at(-1);
  if (!reject) throw new Error(`the step approval message ${message.ts} has no buttons`);
  await driver.press(started.channel, ON_CALL, message.ts, reject);
  await endsNormally(driver, started.id);
}

/**
 * Protects the file of the demo repository's planted bug, for the pipeline (its sensitive paths)
 * and for every workflow (the protected paths): a change of it waits for an approver. Every fix
 * the demo model writes changes that file, so only the conversations that wait for that approval
 * have these settings (they rehearse in a sandbox of their own).
 */
const PROTECTED_CHECKOUT = {
  protectedPaths: { add: [PLANTED_BUG_FILE] },
  issuePipeline: { sensitivePaths: [PLANTED_BUG_FILE] },
} as const;

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
      const started = await investigation(driver);
      await waitsAt(driver, started.id, WAIT_FOR_STEP_APPROVAL);
      return started;
    },
    finish: rejectStep,
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
      const started = await pipelineOf(driver, {
        title: 'The catalog should list products alphabetically',
        body: 'The product catalog lists items in insertion order; customers expect alphabetical order.',
      });
      await waitsAt(driver, started.id, 'Wait for people');
      return started;
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
  {
    workflow: 'issue_pipeline',
    wait: 'sensitive change approval',
    settings: PROTECTED_CHECKOUT,
    needs: {
      feature: "the issue pipeline's sensitive change approval",
      path: 'statemachines/issue-pipeline/workflow.ts',
      text: "'Sensitive change approval'",
    },
    async start(driver) {
      // An issue whose words lead the demo analyst to the planted bug: the writer fixes it, the
      // build and the review pass, and the change touches a sensitive path, so the pipeline
      // waits for an approver before the Committer.
      const started = await pipelineOf(driver, {
        title: 'Checkout totals are too high with a discount code',
        body: 'Checkout charges VAT on the subtotal instead of the net amount after the discount.',
      });
      await waitsAt(driver, started.id, 'Wait for sensitive change approval');
      return started;
    },
    async finish(driver, started) {
      // A developer approves: the Committer opens the pull request and the pipeline ends.
      await pressOnApproval(driver, started, DEVELOPER, /approve/i);
      await endsNormally(driver, started.id);
      await hasEntered(driver, started.id, 'Committer');
    },
  },
  {
    workflow: 'bug_investigation',
    wait: 'protected fix approval',
    settings: PROTECTED_CHECKOUT,
    needs: {
      feature: "the bug fix's protected change approval",
      path: 'statemachines/bug-investigation/fix-guards.ts',
      text: "'protected change approval'",
    },
    async start(driver) {
      // A developer asks for the fix: the fixer writes it, the build passes, and its diff touches
      // a protected path, so the workflow asks an approver before it opens the pull request.
      const { started, findings } = await reportedToDevelopers(driver);
      await driver.post(SUMMARIES, DEVELOPER, 'Please fix it and open a PR', findings.threadTs);
      await waitsAt(driver, started.id, 'Wait for protected change approval');
      return started;
    },
    async finish(driver, started) {
      // A developer approves: the pull request is opened and the conversation waits for the
      // developers again, until the reporter withdraws the report.
      const findings = await driver.waitFor(`the findings thread of ${started.id}`, async () =>
        (await driver.conversations())
          .find((c) => c.id === started.id)
          ?.anchors.find((a) => a.channel === SUMMARIES),
      );
      await pressOnApproval(driver, findings, DEVELOPER, /approve/i);
      await waitsAt(driver, started.id, WAIT_FOR_DEVELOPERS, 2);
      await hasEntered(driver, started.id, 'Open pull request');
      await withdraw(driver, started);
    },
  },
  {
    workflow: 'incident_investigation',
    wait: 'responders after a stop',
    // Its triage turn must still run when on call stops it: the model rate limits the turn's
    // first call, which would reach any turn beside it.
    startsAlone: true,
    needs: {
      feature: "the incident's wait for the responders after a Stop",
      path: 'statemachines/incident-investigation',
      text: "'awaiting_responders'",
    },
    async start(driver) {
      // On call stops the triage turn while its first model call waits out the rate limit (its
      // client waits as it is told, then calls again and is answered): the turn ends there, and
      // the investigation waits for what the responders write.
      const before = await driver.modelRequests();
      await driver.modelFault({ kind: 'rate_limited', count: 1, retryAfterSeconds: RATE_LIMITED_SECONDS });
      try {
        const started = await investigation(driver);
        await driver.waitFor(`the first model call of ${started.id}`, async () =>
          (await driver.conversations()).find((c) => c.id === started.id)?.agentTurnRunning &&
          (await driver.modelRequests()) > before
            ? true
            : undefined,
        );
        await driver.post(started.channel, ON_CALL, 'stop', started.threadTs);
        await driver.waitFor(`the Stop of ${started.id} to be taken`, async () =>
          (await driver.messages(started.channel, started.threadTs)).some(
            (m) => m.bot && m.text.includes(`Stopped by <@${ON_CALL}>`),
          )
            ? true
            : undefined,
        );
        await waitsAt(driver, started.id, 'Wait after triage stopped');
        return started;
      } finally {
        await driver.modelFault(undefined);
      }
    },
    async finish(driver, started) {
      // On call writes in the thread: the triage goes on with it, the investigation reaches a
      // remediation step to approve, and on call rejects it.
      await driver.post(started.channel, ON_CALL, 'Look at the payment provider first', started.threadTs);
      await waitsAt(driver, started.id, WAIT_FOR_STEP_APPROVAL);
      await rejectStep(driver, started);
    },
  },
];
