import { describe, expect, it } from 'vitest';
import {
  ask,
  bugIdFor,
  CHANNELS,
  DEVELOPER,
  findings,
  REPORTER,
  readsHistory,
  submits,
  turn,
} from './bug-harness.ts';
import {
  bugInvestigationHarness,
  finished,
  h,
  summaryThread,
  updatedFindings,
  waitsIn,
} from './bug-investigation-scenario.ts';

/**
 * A bug investigation's messages delivered at once and exactly once whenever they arrive, end
 * to end in the sandbox: an answer sent before the wait opened, developers' messages sent while
 * the reporter is awaited, an answer Slack sends three times. In the same sandbox as
 * bug-investigation.test.ts (the same harness options).
 */

bugInvestigationHarness();

describe('bug investigation in the sandbox: when the messages arrive', () => {
  it('delivers, at once and once, an answer sent before the wait opened', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'uploads hang');
    const bug = bugIdFor(report);
    const prompts: string[] = [];
    h.script(bug, [
      readsHistory(bug),
      async (request) => {
        // The reporter answers while the turn that asks is still finishing.
        await h.post(CHANNELS.reports, REPORTER, 'files over 10 MB, on Chrome', report);
        await h.sandbox.idle();
        return submits(ask('Which file sizes?'))(request);
      },
      ...turn(bug, findings('Uploads over 10 MB hang.'), (_h, p) => prompts.push(p)),
      ...turn(bug, findings('Uploads over 10 MB hang: proxy limit.'), (_h, p) => prompts.push(p)),
    ]);

    const thread = await summaryThread('Uploads over 10 MB hang.');
    await waitsIn(bug, 'awaiting_dev');
    await h.post(CHANNELS.summaries, DEVELOPER, 'is it the proxy body limit?', thread);
    await updatedFindings(thread, 'Uploads over 10 MB hang: proxy limit.');

    const answer =
      '"from":"U_REPORTER","role":"reporter","verified":true,"text":"files over 10 MB, on Chrome';
    expect(prompts[0]).toContain(answer);
    expect(prompts[1]).not.toContain(answer);
    const stored = (await h.store.listMessages(bug)).filter((m) => m.text === 'files over 10 MB, on Chrome');
    expect(stored).toHaveLength(1);
    const events = (await h.execution(bug)).events;
    const waits = events.filter((e) => e.stateName === 'Wait for reporter' && e.type === 'TaskStateEntered');
    expect(waits).toHaveLength(1);
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
    await finished(bug);
  });

  it("keeps developers' messages sent while awaiting the reporter for the turn after the reporter's answer", async () => {
    const report = await h.post(
      CHANNELS.reports,
      REPORTER,
      'The dashboard shows yesterday as empty since Monday',
    );
    const bug = bugIdFor(report);
    let prompt = '';
    h.script(bug, [
      ...turn(bug, findings('Dashboard misses a day.')),
      ...turn(bug, ask('Which timezone is your account in?')),
      ...turn(bug, findings('Dashboard misses a day: UTC cut-off.'), (_h, p) => {
        prompt = p;
      }),
    ]);
    const thread = await summaryThread('Dashboard misses a day.');
    await waitsIn(bug, 'awaiting_dev');
    await h.post(CHANNELS.summaries, DEVELOPER, 'ask them for the timezone', thread);
    await waitsIn(bug, 'awaiting_reporter');

    await h.post(CHANNELS.summaries, DEVELOPER, 'I suspect the UTC cut-off job', thread);
    await h.sandbox.idle();
    expect(h.requestsOf(bug)).toHaveLength(4);
    await h.post(CHANNELS.reports, REPORTER, 'Europe/Berlin', report);
    await updatedFindings(thread, 'Dashboard misses a day: UTC cut-off.');

    expect(prompt).toContain(
      '"from":"U_DEV","role":"developer","verified":true,"text":"I suspect the UTC cut-off job',
    );
    expect(prompt).toContain('"from":"U_REPORTER","role":"reporter","verified":true,"text":"Europe/Berlin');
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
    await finished(bug);
  });

  it('stores and delivers once an answer Slack sends three times', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'emails are not sent');
    const bug = bugIdFor(report);
    let prompt = '';
    h.script(bug, [
      ...turn(bug, ask('Which emails?')),
      ...turn(bug, findings('Password reset emails are not sent.'), (_h, p) => {
        prompt = p;
      }),
    ]);
    await waitsIn(bug, 'awaiting_reporter');
    const ts = `${report.split('.')[0]}.900000`;
    const body = {
      type: 'event_callback',
      team_id: 'T_SANDBOX',
      api_app_id: 'A_BOT',
      event_id: `EvTHRICE${report.replace('.', '')}`,
      event_time: Math.floor(Date.now() / 1000),
      event: {
        type: 'message',
        channel: CHANNELS.reports,
        user: REPORTER,
        text: 'password resets',
        ts,
        thread_ts: report,
        event_ts: ts,
      },
    };

    for (const retry of [undefined, 1, 2]) {
      const response = await h.driver.event(body, retry);
      expect(response.status).toBe(200);
    }
    await summaryThread('Password reset emails are not sent.');

    expect((await h.store.listMessages(bug)).filter((m) => m.text === 'password resets')).toHaveLength(1);
    expect(prompt.split('password resets')).toHaveLength(2);
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
    await finished(bug);
  });
});
