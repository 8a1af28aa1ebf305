import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findCase } from '../../eval/cases/index.ts';
import { leaksIn } from '../../eval/leaks.ts';
import { readRecording } from '../../eval/model-proxy.ts';
import { buildReport, toMarkdown } from '../../eval/report.ts';
import type { Job } from '../../eval/run-case.ts';
import { runJobs } from '../../eval/runner.ts';

/**
 * The harness end to end with the offline demo model on a small subset (a bug with its fix and
 * two channel situations): each case in its own worker process and sandbox, graded by code.
 * It proves the plumbing and the graders: the demo model's pass rate is printed, never asserted.
 */

const SUBSET = ['bug/webshop-vat-before-discount', 'channel/chatter', 'channel/direct-mention'];

const dir = await mkdtemp(join(tmpdir(), 'eval-offline-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const recordingOf = (id: string) => join(dir, `${id.replace(/\//g, '_')}.jsonl`);

describe('the eval harness offline', () => {
  it('runs a small subset through the sandbox with the demo model and reports it as the demo model’s', async () => {
    const jobs = SUBSET.map((id) => {
      const job: Job = {
        caseId: id,
        iteration: 1,
        model: { kind: 'demo' },
        timeoutMs: 180_000,
        timeScale: 0.002,
        recordPath: recordingOf(id),
      };
      return { c: findCase(id), job };
    });
    const env = { ...process.env };
    delete env.ANTHROPIC_API_KEY;
    delete env.ANTHROPIC_BASE_URL;
    const results = await runJobs(jobs, { concurrency: 2, env });

    expect(results.map((r) => r.id)).toEqual(SUBSET);
    for (const r of results) {
      expect(r.error, `${r.id}: ${r.reason}`).toBeUndefined();
      expect(r.checks.length).toBeGreaterThan(0);
      expect(r.endMs).toBeGreaterThan(0);
    }
    const bug = results[0];
    expect(bug?.checks.map((c) => c.name)).toEqual([
      'findings locate the bug',
      'findings state the cause',
      'pull request',
      'fail-to-pass',
      'pass-to-pass',
    ]);
    expect(bug?.usage.modelCalls).toBeGreaterThan(0);
    // Channel answers keep no ledger: their cost comes from the day's spend counter, which
    // holds the demo model's price, $0, as the sandbox's console shows it.
    expect(results[2]?.costUsd).toBe(0);

    // Every request the agents sent names neither the case nor its truth, nor says it is an eval.
    for (const id of SUBSET.filter((i) => i !== 'channel/chatter')) {
      const requests = readRecording(recordingOf(id)).exchanges.map((e) => JSON.stringify(e.request));
      expect(requests.length, id).toBeGreaterThan(0);
      expect(leaksIn(findCase(id), requests.join('\n')), id).toEqual([]);
    }

    const report = buildReport(
      {
        model: 'offline-demo-model',
        realModel: false,
        mode: 'demo',
        commit: 'test',
        startedAt: '',
        wallMs: 0,
        iterations: 1,
        concurrency: 2,
        judgeAvailable: false,
      },
      results,
    );
    expect(toMarkdown(report)).toContain("OFFLINE DEMO MODEL's");
    const passed = results.filter((r) => r.pass).length;
    console.log(
      `offline demo model (not a real model): ${passed}/${results.length} passed — ${results.map((r) => `${r.id} ${r.pass ? 'pass' : `FAIL (${r.reason})`}`).join('; ')}`,
    );
  });
});
