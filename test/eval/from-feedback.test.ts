import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { skeletonsFrom, TODO } from '../../eval/from-feedback.ts';

const FIXTURE = readFileSync(join(import.meta.dirname, 'fixtures', 'feedback.jsonl'), 'utf8');

describe('feedback into case skeletons', () => {
  const { skeletons, skipped, errors } = skeletonsFrom(FIXTURE);

  it('turns each down-voted answer into a skeleton of its workflow, skipping up-votes and naming bad lines', () => {
    expect(skeletons.map((s) => [s.workflow, s.id])).toEqual([
      ['incident_investigation', 'incident/feedback-incident-investigation-c-ops-trigger-7-1764201600000200'],
      [
        'bug_investigation',
        'bug/feedback-bug-investigation-c-bug-reports-1764201800-000100-1764201900000300',
      ],
    ]);
    expect(skipped).toBe(1);
    expect(errors).toEqual(['line 3: not JSON']);
  });

  it('keeps the request and the rejected answer, and marks the truth for a person to complete', () => {
    const [incident] = skeletons;
    expect(incident).toMatchObject({
      request: 'checkout payments failing since 14:00',
      title: `${TODO}: It was the payment-api deploy, not the cache`,
      truth: { component: [TODO], change: { kinds: [TODO], names: [TODO] }, evidence: [TODO] },
      source: {
        answer: 'Root cause: the session-cache evicted carts.',
        by: 'U_ONCALL',
        answerKind: 'conclusion',
      },
    });
    expect(incident?.todo).toEqual(
      expect.arrayContaining(['truth.outcome', 'truth.component', 'scenario (the telemetry as it was)']),
    );
    expect(skeletons[1]).toMatchObject({ report: 'VAT one cent short on a notebook', truth: { file: TODO } });
  });

  it('converts the same answer once however often it was voted down', () => {
    const line = FIXTURE.split('\n')[0] ?? '';
    expect(skeletonsFrom(`${line}\n${line}\n`)).toMatchObject({ skipped: 1, errors: [] });
  });

  it('refuses a line of another shape with the field at fault', () => {
    const bad = JSON.stringify({ kind: 'feedback', workflow: 'nope' });
    expect(skeletonsFrom(bad).errors[0]).toMatch(/^line 1: workflow: /);
  });
});
