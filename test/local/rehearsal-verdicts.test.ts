import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { ConversationEndedError, releaseHas } from '../../local/rehearsal/conversations.ts';
import { failedOnField, parseRename } from '../../local/rehearsal/incompatible-release.ts';
import { mergeSettings } from '../../local/rehearsal/rehearse.ts';
import { REHEARSED_CONVERSATIONS } from '../../local/rehearsal/rehearsed-conversations.ts';
import { failures, skippedVerdict, verdictLine, verdictOf } from '../../local/rehearsal/verdicts.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** The upgrade rehearsal's verdicts: one line per conversation, naming the fields a failure names. */

describe('the fields a failure names', () => {
  /** The fields the verdict of a conversation that failed with `cause` names. */
  const incompatibleFields = (cause: string) =>
    verdictOf({ workflow: 'bug_investigation', wait: 'reporter' }, 'finish', new Error(cause)).fields;

  it('reads the JSONPaths Step Functions could not find', () => {
    const cause =
      "The JSONPath '$.turn.nextAction' specified for the field 'Variable' could not be found in the input";
    expect(incompatibleFields(cause)).toEqual(['turn.nextAction']);
    expect(incompatibleFields("Path '$['wake']['fromUser']' not found")).toEqual(['wake.fromUser']);
  });

  it('reads the paths zod refused, also inside an escaped Lambda error', () => {
    const cause = JSON.stringify({
      errorType: 'ZodError',
      errorMessage: JSON.stringify([
        { code: 'invalid_type', path: ['wait', 'reporterId'], message: 'Required' },
      ]),
    });
    expect(incompatibleFields(cause)).toEqual(['wait.reporterId']);
  });

  it('names nothing when the text names no field', () => {
    expect(incompatibleFields('States.Timeout: Task timed out')).toEqual([]);
  });
});

describe('a verdict line', () => {
  const conversation = { workflow: 'bug_investigation', wait: 'reporter' };

  it('passes a conversation that ended normally', () => {
    expect(verdictLine(verdictOf(conversation, 'finish'))).toMatch(
      /^PASS {2}bug_investigation +reporter +waited across the upgrade and ended normally$/,
    );
  });

  it('fails one whose execution failed after the upgrade, with its error, cause and fields', () => {
    const ended = new ConversationEndedError('bug-1', {
      name: 'bug-1',
      status: 'FAILED',
      error: 'States.Runtime',
      cause:
        "The JSONPath '$.turn.nextAction' specified for the field 'Variable' could not be found in the input",
      events: [],
    });
    const line = verdictLine(verdictOf(conversation, 'finish', ended));
    expect(line).toMatch(
      /^FAIL {2}bug_investigation +reporter +after the upgrade: bug-1 ended FAILED: States.Runtime: /,
    );
    expect(line).toMatch(/; incompatible field\(s\): turn\.nextAction$/);
  });
});

describe('a conversation whose feature the old release lacks', () => {
  const conversation = { workflow: 'issue_pipeline', wait: 'sensitive change approval' };
  const mark = {
    feature: "the issue pipeline's sensitive change approval",
    path: 'statemachines/issue-pipeline/workflow.ts',
    text: "'Sensitive change approval'",
  };

  it('is skipped with a line that names the release and the feature', () => {
    expect(verdictLine(skippedVerdict(conversation, 'v1.2.0', mark))).toMatch(
      /^SKIP {2}issue_pipeline +sensitive change approval +not rehearsed: v1\.2\.0 lacks the issue pipeline's sensitive change approval \(statemachines\/issue-pipeline\/workflow\.ts does not have "'Sensitive change approval'"\), so nothing can wait in it when it is upgraded$/,
    );
  });

  it('neither passes nor fails the rehearsal', () => {
    const skipped = skippedVerdict(conversation, 'v1.2.0', mark);
    const failed = verdictOf(conversation, 'finish', new Error('no progress'));
    expect(skipped.ok).toBe(false);
    expect(failures([skipped, verdictOf(conversation, 'finish')])).toEqual([]);
    expect(failures([skipped, failed])).toEqual([failed]);
  });

  it('is marked by a text this checkout has, so the release after this one is rehearsed for it', () => {
    const marked = REHEARSED_CONVERSATIONS.filter((c) => c.needs !== undefined);
    expect(marked.map((c) => `${c.workflow}:${c.wait}`)).toEqual([
      'issue_pipeline:sensitive change approval',
      'bug_investigation:protected fix approval',
      'incident_investigation:responders after a stop',
    ]);
    for (const { needs } of marked) {
      if (needs === undefined) continue;
      expect(releaseHas(ROOT, needs), `${needs.path} has ${needs.text}`).toBe(true);
    }
  });

  it("is read from a file, or from any file of a folder, so a release that moved the text between a folder's files keeps it", () => {
    const release = mkdtempSync(join(tmpdir(), 'release-'));
    try {
      mkdirSync(join(release, 'machines', 'incident'), { recursive: true });
      writeFileSync(join(release, 'machines', 'incident', 'phases.ts'), "phase: 'awaiting_responders'");
      writeFileSync(join(release, 'machines', 'workflow.ts'), 'nothing of it');
      const mark = (path: string, text = "'awaiting_responders'") => ({ feature: 'f', path, text });
      expect(releaseHas(release, mark('machines/incident/phases.ts'))).toBe(true);
      expect(releaseHas(release, mark('machines'))).toBe(true);
      expect(releaseHas(release, mark('machines/workflow.ts'))).toBe(false);
      expect(releaseHas(release, mark('machines', "'awaiting_developers'"))).toBe(false);
      expect(releaseHas(release, mark('gone'))).toBe(false);
    } finally {
      rmSync(release, { recursive: true, force: true });
    }
  });
});

describe('settings of its own', () => {
  it("go over the rehearsal's, object by object; an array replaces", () => {
    const base = { bugInvestigation: { continueAsNewAfterTurns: 2, sla: { maxReminders: 3 } }, list: [1] };
    const own = { bugInvestigation: { sla: { maxReminders: 1 } }, protectedPaths: { add: ['a'] }, list: [2] };
    expect(mergeSettings(base, own)).toEqual({
      bugInvestigation: { continueAsNewAfterTurns: 2, sla: { maxReminders: 1 } },
      protectedPaths: { add: ['a'] },
      list: [2],
    });
    expect(base.bugInvestigation.sla.maxReminders).toBe(3);
  });
});

describe('the deliberately incompatible release', () => {
  const field = parseRename('turnContext=turnCtx');
  const reporter = { workflow: 'bug_investigation', wait: 'reporter' };
  const developers = { workflow: 'bug_investigation', wait: 'developers' };
  const failedOn = (cause: string) =>
    verdictOf(
      reporter,
      'finish',
      new ConversationEndedError('bug-1', {
        name: 'bug-1',
        status: 'FAILED',
        error: 'States.Runtime',
        cause,
        events: [],
      }),
    );

  it('takes old=new, two different identifiers', () => {
    expect(field).toEqual({ from: 'turnContext', to: 'turnCtx' });
    expect(() => parseRename('turnContext')).toThrow(/old=new/);
    expect(() => parseRename('a.b=c')).toThrow(/old=new/);
    expect(() => parseRename('same=same')).toThrow(/renames nothing/);
  });

  it('is caught only when a conversation failed and every failure names the field', () => {
    const onField = failedOn("Path expression '$.turnCtx.state' does not point to a value");
    const elsewhere = failedOn("The JSONPath '$.turn.nextAction' could not be found in the input");
    expect(failedOnField([onField, verdictOf(developers, 'finish')], field)).toBe(true);
    expect(failedOnField([verdictOf(reporter, 'finish'), verdictOf(developers, 'finish')], field)).toBe(
      false,
    );
    expect(failedOnField([onField, elsewhere], field)).toBe(false);
  });

  it('is not caught by skipped conversations alone, and they do not hide a failure on the field', () => {
    const mark = { feature: 'a wait', path: 'x.ts', text: 'y' };
    const skipped = skippedVerdict(developers, 'HEAD', mark);
    const onField = failedOn("Path expression '$.turnCtx.state' does not point to a value");
    expect(failedOnField([skipped], field)).toBe(false);
    expect(failedOnField([onField, skipped], field)).toBe(true);
  });
});
