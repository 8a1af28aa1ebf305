import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidWebhookSignatureError } from '../../lambdas/ingress/errors.ts';
import { createIngressHandler } from '../../lambdas/ingress/handle-ingress.ts';
import { verifyGithubRequest } from '../../lambdas/ingress/verify-github-request.ts';
import { verifyPagerdutyRequest } from '../../lambdas/ingress/verify-pagerduty-request.ts';
import { fakeInbox, recordingLogger } from './slack-requests.ts';
import {
  alarmStateChange,
  computePagerdutySignature,
  githubExample,
  githubExamples,
  githubRequest,
  pagerdutyIncident,
  pagerdutyRequest,
  refreshTimes,
} from './webhooks.ts';

/** What the ingress handler is built from. */
type IngressDependencies = Parameters<typeof createIngressHandler>[0];

// Generated per run: no secret is in the code.
const GITHUB_SECRET = randomBytes(20).toString('hex');
const PAGERDUTY_SECRET = randomBytes(20).toString('hex');
const NOW = new Date('2015-11-23T12:00:00.000Z');

function setup(overrides: Partial<IngressDependencies> = {}) {
  const inbox = fakeInbox();
  const logger = recordingLogger();
  const handle = createIngressHandler({
    getSigningSecret: async () => 'slack-secret-unused-here',
    getGithubWebhookSecret: async () => GITHUB_SECRET,
    getPagerdutyWebhookSecret: async () => PAGERDUTY_SECRET,
    enqueue: inbox.enqueue,
    now: () => NOW.getTime(),
    logger,
    botUserId: 'U_BOT',
    ...overrides,
  });
  return { handle, inbox, logger };
}

describe('GitHub signature verification', () => {
  it('accepts the signature GitHub computes over the body', async () => {
    const body = JSON.stringify(githubExample('ping', undefined, NOW));
    const { sign } = await import('@octokit/webhooks-methods');

    await expect(
      verifyGithubRequest({ secret: GITHUB_SECRET, body, signature: await sign(GITHUB_SECRET, body) }),
    ).resolves.toBeUndefined();
  });

  it.each([
    ['missing', undefined, 'missing_signature'],
    ['in the old sha1 form', `sha1=${'0'.repeat(40)}`, 'malformed_signature'],
    ['of another body', `sha256=${'a'.repeat(64)}`, 'signature_mismatch'],
  ])('refuses a signature that is %s with its reason', async (_name, signature, reason) => {
    const failure = await verifyGithubRequest({ secret: GITHUB_SECRET, body: '{}', signature }).catch(
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(InvalidWebhookSignatureError);
    expect(failure).toMatchObject({ source: 'github', reason });
  });
});

describe('PagerDuty signature verification', () => {
  it('accepts a body signed with the secret, alone or among the signatures of a rotation', () => {
    const body = JSON.stringify(pagerdutyIncident({ at: NOW }));
    const ours = computePagerdutySignature(PAGERDUTY_SECRET, body);
    const theirs = computePagerdutySignature('the-other-secret-of-the-rotation', body);

    expect(() => verifyPagerdutyRequest({ secret: PAGERDUTY_SECRET, body, signature: ours })).not.toThrow();
    expect(() =>
      verifyPagerdutyRequest({ secret: PAGERDUTY_SECRET, body, signature: `${theirs}, ${ours}` }),
    ).not.toThrow();
  });

  it.each([
    ['missing', undefined, 'missing_signature'],
    ['of an unknown version only', `v2=${'a'.repeat(64)}`, 'malformed_signature'],
    ['of another secret', undefined, 'signature_mismatch'],
  ])('refuses a signature that is %s with its reason', (name, given, reason) => {
    const body = '{"event":{}}';
    const signature = name === 'of another secret' ? computePagerdutySignature('wrong', body) : given;

    expect(() => verifyPagerdutyRequest({ secret: PAGERDUTY_SECRET, body, signature })).toThrow(
      expect.objectContaining({ name: 'InvalidWebhookSignatureError', reason }),
    );
  });
});

describe('GitHub webhooks at /github/events', () => {
  it('answers ping with 200 and enqueues nothing', async () => {
    const { handle, inbox } = setup();
    const body = JSON.stringify(githubExample('ping', undefined, NOW));

    const response = await handle(await githubRequest({ event: 'ping', body, secret: GITHUB_SECRET }));

    expect(response.statusCode).toBe(200);
    expect(inbox.sent).toEqual([]);
  });

  it.each([
    ['issues', githubExamples('issues')],
    ['issue_comment', githubExamples('issue_comment')],
    ['pull_request_review', githubExamples('pull_request_review')],
  ] as const)(
    'enqueues every real %s example once, grouped by issue, deduplicated by the delivery or the comment',
    async (event, payloads) => {
      const { handle, inbox } = setup();

      for (const [index, payload] of payloads.entries()) {
        const body = JSON.stringify(refreshTimes(payload, NOW));
        const response = await handle(
          await githubRequest({
            event,
            body,
            secret: GITHUB_SECRET,
            deliveryId: `delivery-${event}-${index}`,
          }),
        );
        expect(response.statusCode).toBe(202);
      }

      expect(inbox.sent).toHaveLength(payloads.length);
      for (const [index, sent] of inbox.sent.entries()) {
        // An issue event is its delivery; a comment or a review is itself, whichever delivery brought it.
        const own = (payloads[index] as { comment?: { id: number }; review?: { id: number } }) ?? {};
        const expected =
          event === 'issues'
            ? `delivery-${event}-${index}`
            : new RegExp(
                `^github-${event === 'issue_comment' ? `comment:${own.comment?.id}` : `review:${own.review?.id}`}@`,
              );
        if (typeof expected === 'string') expect(sent.dedupId).toBe(expected);
        else expect(sent.dedupId).toMatch(expected);
        expect(sent.envelope).toMatchObject({
          kind: 'github',
          event,
          repository: expect.stringContaining('/'),
        });
        if (sent.envelope.kind !== 'github') throw new Error('not a GitHub envelope');
        expect(sent.groupId).toBe(`github:${sent.envelope.repository}#${sent.envelope.number}`);
      }
    },
  );

  it('reads the label, the sender and the issue of an issues.labeled delivery', async () => {
    const { handle, inbox } = setup();
    const body = JSON.stringify(githubExample('issues', 'labeled', NOW));

    await handle(await githubRequest({ event: 'issues', body, secret: GITHUB_SECRET, deliveryId: 'd-1' }));

    expect(inbox.sent[0]?.envelope).toMatchObject({
      kind: 'github',
      eventId: 'd-1',
      event: 'issues',
      action: 'labeled',
      repository: 'Codertocat/Hello-World',
      number: 1,
      label: 'bug',
      user: 'github:Codertocat',
      senderIsBot: false,
      title: 'Spelling error in the README file',
    });
  });

  // When a maintainer edits an outsider's comment, GitHub sends the maintainer as `sender` and
  // the outsider as `comment.user`: the comment was once attributed to the sender.
  it.each([
    ['issue_comment', 'edited', 'comment'],
    ['issues', 'labeled', 'issue'],
    ['pull_request_review', 'submitted', 'review'],
  ] as const)(
    'attributes a %s.%s to its author (%s.user), and the action to the sender',
    async (event, action, subject) => {
      const { handle, inbox } = setup();
      const payload = githubExample(event, action, NOW) as Record<string, { user: { login: string } }> & {
        sender: { login: string; id: number; type: string };
      };
      const author = payload[subject]?.user.login;
      payload.sender = { ...payload.sender, login: 'demo-maintainer', id: 4242 };

      const body = JSON.stringify(payload);
      const response = await handle(await githubRequest({ event, body, secret: GITHUB_SECRET }));

      expect(response.statusCode).toBe(202);
      expect(author).toBe('Codertocat');
      expect(inbox.sent[0]?.envelope).toMatchObject({
        event,
        action,
        user: 'github:Codertocat',
        actor: 'github:demo-maintainer',
        senderIsBot: false,
      });
    },
  );

  it("marks the sender as a bot by the sender's type, not the author's: a person labelling a bot's issue acts", async () => {
    const { handle, inbox } = setup();
    const payload = githubExample('issues', 'labeled', NOW) as {
      issue: { user: { login: string; type: string } };
      sender: { login: string; type: string };
    };
    payload.issue.user = { ...payload.issue.user, login: 'dependabot[bot]', type: 'Bot' };
    const byBot = structuredClone(payload);
    byBot.sender = { ...byBot.sender, login: 'our-app[bot]', type: 'Bot' };

    for (const sent of [payload, byBot])
      await handle(
        await githubRequest({ event: 'issues', body: JSON.stringify(sent), secret: GITHUB_SECRET }),
      );

    expect(inbox.sent.map((s) => s.envelope)).toMatchObject([
      { user: 'github:dependabot[bot]', actor: 'github:Codertocat', senderIsBot: false },
      { user: 'github:dependabot[bot]', actor: 'github:our-app[bot]', senderIsBot: true },
    ]);
  });

  it('gives a redelivery the same ts, so the Router stores it once', async () => {
    const { handle, inbox } = setup();
    const body = JSON.stringify(githubExample('issue_comment', 'created', NOW));

    await handle(
      await githubRequest({ event: 'issue_comment', body, secret: GITHUB_SECRET, deliveryId: 'd-9' }),
    );
    await handle(
      await githubRequest({ event: 'issue_comment', body, secret: GITHUB_SECRET, deliveryId: 'd-9' }),
    );

    expect(inbox.sent.map((s) => s.envelope.ts)).toEqual([
      inbox.sent[0]?.envelope.ts,
      inbox.sent[0]?.envelope.ts,
    ]);
  });

  it('gives the same comment under two delivery ids one dedup id and one ts (a comment is stored once)', async () => {
    const { handle, inbox } = setup();
    const body = JSON.stringify(githubExample('issue_comment', 'created', NOW));

    for (const deliveryId of ['d-first', 'd-second']) {
      await handle(await githubRequest({ event: 'issue_comment', body, secret: GITHUB_SECRET, deliveryId }));
    }

    const [first, second] = inbox.sent;
    expect(first?.dedupId).toMatch(/^github-comment:\d+@/);
    expect(second?.dedupId).toBe(first?.dedupId);
    expect(second?.envelope.ts).toBe(first?.envelope.ts);
  });

  it('takes an edit of a comment (a new updated_at) as a message of its own', async () => {
    const { handle, inbox } = setup();
    const created = githubExample('issue_comment', 'created', NOW) as { comment: { updated_at: string } };
    const edited = structuredClone(created);
    edited.comment.updated_at = new Date(NOW.getTime() + 60_000).toISOString();

    for (const [deliveryId, payload] of [
      ['d-1', created],
      ['d-2', edited],
    ] as const) {
      const body = JSON.stringify(payload);
      await handle(await githubRequest({ event: 'issue_comment', body, secret: GITHUB_SECRET, deliveryId }));
    }

    const [first, second] = inbox.sent;
    expect(second?.dedupId).not.toBe(first?.dedupId);
    expect(second?.envelope.ts).not.toBe(first?.envelope.ts);
  });

  it('refuses a forged delivery with 401 and enqueues nothing', async () => {
    const { handle, inbox, logger } = setup();
    const body = JSON.stringify(githubExample('issues', 'labeled', NOW));

    const response = await handle(
      await githubRequest({ event: 'issues', body, secret: GITHUB_SECRET, signWith: 'not-the-secret' }),
    );

    expect(response.statusCode).toBe(401);
    expect(inbox.sent).toEqual([]);
    expect(JSON.stringify(logger.lines)).not.toContain(GITHUB_SECRET);
  });

  it('refuses a stale delivery (an event more than three days old) with 401', async () => {
    const { handle, inbox } = setup();
    const body = JSON.stringify(githubExample('issues', 'labeled', new Date(NOW.getTime() - 4 * 86_400_000)));

    const response = await handle(await githubRequest({ event: 'issues', body, secret: GITHUB_SECRET }));

    expect(response.statusCode).toBe(401);
    expect(inbox.sent).toEqual([]);
  });

  it.each([
    ['not JSON', '{"action":'],
    [
      'without the issue',
      JSON.stringify({ action: 'labeled', repository: { full_name: 'a/b' }, sender: { login: 'x' } }),
    ],
  ])('refuses a validly signed body that is %s with 400 and no retry', async (_name, body) => {
    const { handle, inbox } = setup();

    const response = await handle(await githubRequest({ event: 'issues', body, secret: GITHUB_SECRET }));

    expect(response.statusCode).toBe(400);
    expect(response.headers['x-slack-no-retry']).toBe('1');
    expect(inbox.sent).toEqual([]);
  });

  it('accepts an event it does not route (push) with 200 and a logged reason', async () => {
    const { handle, inbox, logger } = setup();

    const response = await handle(
      await githubRequest({ event: 'push', body: '{"ref":"main"}', secret: GITHUB_SECRET }),
    );

    expect(response.statusCode).toBe(200);
    expect(inbox.sent).toEqual([]);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        message: 'ignored a request',
        attributes: expect.objectContaining({ reason: 'github_event', detail: 'push' }),
      }),
    );
  });

  it('answers 404 at /github/events when no GitHub secret is configured', async () => {
    const { handle } = setup({ getGithubWebhookSecret: undefined });
    const body = JSON.stringify(githubExample('ping', undefined, NOW));

    const response = await handle(await githubRequest({ event: 'ping', body, secret: GITHUB_SECRET }));

    expect(response.statusCode).toBe(404);
  });
});

describe('PagerDuty webhooks at /pagerduty/events', () => {
  it('enqueues an incident.triggered event grouped by incident and deduplicated by the event id', async () => {
    const { handle, inbox } = setup();
    const body = JSON.stringify(pagerdutyIncident({ eventId: '01DEN4EXAMPLE', at: NOW }));

    const response = await handle(pagerdutyRequest(body, [PAGERDUTY_SECRET]));

    expect(response.statusCode).toBe(202);
    expect(inbox.sent).toEqual([
      expect.objectContaining({ dedupId: '01DEN4EXAMPLE', groupId: 'alert:pagerduty:Q1QKZKKE0FHUPJ' }),
    ]);
    expect(inbox.sent[0]?.envelope).toMatchObject({
      kind: 'alert',
      source: 'pagerduty',
      name: 'Checkout API',
      serviceId: 'PF9KMXH',
      state: 'incident.triggered',
      opens: true,
      user: 'pagerduty:PLH1HKV',
    });
  });

  it('refuses a forged webhook with 401, and a stale one too', async () => {
    const { handle, inbox } = setup();
    const body = JSON.stringify(pagerdutyIncident({ at: NOW }));
    const stale = JSON.stringify(pagerdutyIncident({ at: new Date(NOW.getTime() - 4 * 86_400_000) }));

    const forged = await handle(pagerdutyRequest(body, ['not-the-secret']));
    const old = await handle(pagerdutyRequest(stale, [PAGERDUTY_SECRET]));

    expect([forged.statusCode, old.statusCode]).toEqual([401, 401]);
    expect(inbox.sent).toEqual([]);
  });

  it('accepts a ping (pagey.ping) with 200 and enqueues nothing', async () => {
    const { handle, inbox } = setup();
    const body = JSON.stringify({
      event: {
        id: '01PING',
        event_type: 'pagey.ping',
        resource_type: 'pagey',
        occurred_at: NOW.toISOString(),
        data: { message: 'Hello from your friend Pagey!', type: 'ping' },
      },
    });

    const response = await handle(pagerdutyRequest(body, [PAGERDUTY_SECRET]));

    expect(response.statusCode).toBe(200);
    expect(inbox.sent).toEqual([]);
  });

  it('refuses a validly signed incident without a service with 400', async () => {
    const { handle, inbox } = setup();
    const payload = pagerdutyIncident({ at: NOW }) as { event: { data: Record<string, unknown> } };
    delete payload.event.data.service;

    const response = await handle(pagerdutyRequest(JSON.stringify(payload), [PAGERDUTY_SECRET]));

    expect(response.statusCode).toBe(400);
    expect(inbox.sent).toEqual([]);
  });
});

describe('CloudWatch alarm state changes from EventBridge', () => {
  it('enqueues an ALARM as an incident of that alarm and that episode, deduplicated by the event id', async () => {
    const { handle, inbox } = setup();
    const event = alarmStateChange({ alarmName: 'probe-checkout-5xx', state: 'ALARM', at: NOW, id: 'eb-1' });

    const response = await handle(event);

    expect(response.statusCode).toBe(202);
    expect(inbox.sent[0]?.dedupId).toBe('eb-1');
    expect(inbox.sent[0]?.envelope).toMatchObject({
      kind: 'alert',
      source: 'cloudwatch',
      name: 'probe-checkout-5xx',
      state: 'ALARM',
      opens: true,
    });
  });

  it('puts the OK that ends an ALARM in the same incident as that ALARM', async () => {
    const { handle, inbox } = setup();
    const wentToAlarm = new Date(NOW.getTime() - 600_000);

    await handle(alarmStateChange({ alarmName: 'a', state: 'ALARM', at: wentToAlarm }));
    await handle(alarmStateChange({ alarmName: 'a', state: 'OK', at: NOW, previousAt: wentToAlarm }));

    expect(inbox.sent.map((s) => s.groupId)).toEqual([inbox.sent[0]?.groupId, inbox.sent[0]?.groupId]);
    expect(inbox.sent[1]?.envelope).toMatchObject({ state: 'OK', opens: false });
  });

  it('answers 400 to a malformed alarm event and throws when the inbox fails, so EventBridge retries', async () => {
    const { handle, inbox } = setup();
    const broken = { ...alarmStateChange({ alarmName: 'a', state: 'ALARM', at: NOW }), detail: {} };
    const failing = setup({ enqueue: async () => Promise.reject(new Error('SQS is down')) });

    const response = await handle(broken);
    const failure = await failing
      .handle(alarmStateChange({ alarmName: 'a', state: 'ALARM', at: NOW }))
      .catch((e: unknown) => e);

    expect(response.statusCode).toBe(400);
    expect(inbox.sent).toEqual([]);
    expect(failure).toBeInstanceOf(Error);
  });
});
