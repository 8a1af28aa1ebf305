import { ConversationEndedError } from './conversations.ts';

/**
 * A rehearsed conversation's verdict, one line each, and the fields a failure names: the
 * JSONPaths Step Functions could not find (`$.turn.action`), the paths zod refused
 * (`"path": ["conversationId"]`), the fields a handler's error names ('field' in quotes).
 */

export interface Verdict {
  readonly workflow: string;
  readonly wait: string;
  /** Where it was when the verdict fell: on the old release (`start`) or the new one (`finish`). */
  readonly stage: 'start' | 'finish';
  readonly ok: boolean;
  readonly message?: string;
  readonly fields: readonly string[];
}

/** The fields a failure's text names, in the order they appear, each once. */
export function incompatibleFields(text: string): string[] {
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

/** `PASS  bug_investigation  reporter` or `FAIL ... : <why>; incompatible field(s): a, b`. */
export function verdictLine(verdict: Verdict): string {
  const head = `${verdict.ok ? 'PASS' : 'FAIL'}  ${verdict.workflow.padEnd(24)} ${verdict.wait.padEnd(22)}`;
  if (verdict.ok) return `${head} waited across the upgrade and ended normally`;
  const where = verdict.stage === 'start' ? 'on the old release' : 'after the upgrade';
  const fields = verdict.fields.length > 0 ? `; incompatible field(s): ${verdict.fields.join(', ')}` : '';
  return `${head} ${where}: ${verdict.message}${fields}`;
}
