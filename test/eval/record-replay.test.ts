import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findCase } from '../../eval/cases/index.ts';
import type { Job } from '../../eval/run-case.ts';
import { runJobs } from '../../eval/runner.ts';
import { startScriptedModel, systemText, text } from '../support/scripted-model.ts';

/**
 * Record and replay through the whole harness: a "live" run against a model server (a scripted
 * one standing in for a real model, and for the judge) keeps the case's exchanges, the judge's
 * among them; a replay without any key or model server answers from them and grades the same.
 */

const dir = await mkdtemp(join(tmpdir(), 'eval-record-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('record and replay', () => {
  it('replays a recorded run without a model, with the same verdict', async () => {
    // The scripted server answers the agent and, as the judge, finds the rubric met.
    const model = await startScriptedModel({
      steps: (request) =>
        systemText(request.body).startsWith('You grade one answer')
          ? text(JSON.stringify({ items: [{ item: 'says 14:00', met: true, why: 'it does' }], pass: true }))
          : text('Production deploys run daily at 14:00 UTC.'),
    });
    const c = findCase('channel/direct-mention');
    const path = join(dir, 'channel_direct-mention.1.jsonl');
    const base = { caseId: c.id, iteration: 1, timeoutMs: 60_000, timeScale: 0.002 };
    const live: Job = { ...base, model: { kind: 'live', id: 'claude-sonnet-5-5' }, recordPath: path };
    const [recorded] = await runJobs([{ c, job: live }], {
      concurrency: 1,
      env: {
        ...process.env,
        ANTHROPIC_BASE_URL: model.baseUrl,
        ANTHROPIC_API_KEY: 'test-key',
        EVAL_JUDGE_BASE_URL: model.baseUrl,
      },
    });
    await model.close();
    expect(recorded?.reason).toBe(`all ${recorded?.checks.length} checks passed`);
    expect(recorded?.checks.map((c) => c.name)).toContain('message 2: judge');
    expect(model.requests.length).toBeGreaterThan(0);
    expect(await readFile(path, 'utf8')).not.toContain('test-key');

    const env = { ...process.env };
    for (const name of [
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_BASE_URL',
      'EVAL_JUDGE_BASE_URL',
      'EVAL_JUDGE_API_KEY',
    ])
      delete env[name];
    const calls = model.requests.length;
    const replay: Job = { ...base, model: { kind: 'replay' }, replayPath: path };
    const [replayed] = await runJobs([{ c, job: replay }], { concurrency: 1, env });
    expect(replayed?.error).toBeUndefined();
    expect(replayed?.checks).toEqual(recorded?.checks);
    expect(replayed?.usage.modelCalls).toBe(recorded?.usage.modelCalls);
    // The judge answered from the recording too: nothing reached a model.
    expect(model.requests.length).toBe(calls);
  });
});
