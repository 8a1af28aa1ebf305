import { ConversationEndedError, type FeatureMark } from './conversations.ts';

/**
 * A rehearsed conversation's verdict, one line each, and the fields a failure names: the
 * JSONPaths Step Functions could not find (`$.turn.action`), the paths zod refused
 * (`"path": ["conversationId"]`), the fields a handler's error names ('field' in quotes).
 */

export interface Verdict {
  readonly workflow: string;
  readonly wait: string;
  /**
   * Where it was when the verdict fell: on the old release (`start`) or the new one (`finish`);
   * `skip`: not rehearsed, the old release lacks its feature (`message` names it).
   */
  readonly stage: 'start' | 'finish' | 'skip';
  /** It waited across the upgrade and ended normally (false for a skipped one too). */
  readonly ok: boolean;
  readonly message?: string;
  readonly fields: readonly string[];
}

/** The fields a failure's text names, in the order they appear, each once. */
function incompatibleFields(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/\$((?:\.[A-Za-z_][\w-]*|\['[^']+'\]|\[\d+\])+)/g)) {
    found.push((match[1] ?? '').replace(/\['([^']+)'\]/g, '.$1').slice(1));
  }
  for (const match of text.matchAll(/\\*"path\\*"\s*:\s*\[([^\]]*)\]/g)) {
    const parts = [...(match[1] ?? '').matchAll(/\\*"([^"\\]+)\\*"|(\d+)/g)].map(
      (part) => part[1] ?? part[2],
    );
    if (parts.length > 0) found.push(parts.join('.'));
  }
  // A handler's own words, when no path says more ("field 'x'" also names ASL's own fields).
  if (found.length === 0) {
    for (const match of text.matchAll(/\b(?:field|property|key)s? ['"`]([\w.-]+)['"`]/gi))
      found.push(match[1] ?? '');
  }
  return [...new Set(found.filter(Boolean))];
}

export function verdictOf(
  conversation: { workflow: string; wait: string },
  stage: Verdict['stage'],
  error?: unknown,
): Verdict {
  if (error === undefined) return { ...conversation, stage, ok: true, fields: [] };
  const message =
    error instanceof ConversationEndedError
      ? error.message
      : error instanceof Error
        ? `${error.name}: ${error.message}`
        : String(error);
  return { ...conversation, stage, ok: false, message, fields: incompatibleFields(message) };
}

/** A conversation not rehearsed because `ref` lacks its feature: where the feature would be. */
export function skippedVerdict(
  conversation: { workflow: string; wait: string },
  ref: string,
  mark: FeatureMark,
): Verdict {
  return {
    ...conversation,
    stage: 'skip',
    ok: false,
    message: `${ref} lacks ${mark.feature} (${mark.path} does not have "${mark.text}")`,
    fields: [],
  };
}

/** The verdicts that fail the rehearsal: every one that is neither a pass nor a skip. */
export function failures(verdicts: readonly Verdict[]): Verdict[] {
  return verdicts.filter((verdict) => !verdict.ok && verdict.stage !== 'skip');
}

/** `PASS  bug_investigation  reporter`, `FAIL ... : <why>; incompatible field(s): a, b` or `SKIP ... not rehearsed: <why>`. */
export function verdictLine(verdict: Verdict): string {
  const label = verdict.ok ? 'PASS' : verdict.stage === 'skip' ? 'SKIP' : 'FAIL';
  const head = `${label}  ${verdict.workflow.padEnd(24)} ${verdict.wait.padEnd(25)}`;
  if (verdict.ok) return `${head} waited across the upgrade and ended normally`;
  if (verdict.stage === 'skip')
    return `${head} not rehearsed: ${verdict.message}, so nothing can wait in it when it is upgraded`;
  const where = verdict.stage === 'start' ? 'on the old release' : 'after the upgrade';
  const fields = verdict.fields.length > 0 ? `; incompatible field(s): ${verdict.fields.join(', ')}` : '';
  return `${head} ${where}: ${verdict.message}${fields}`;
}
