import { createHmac } from 'node:crypto';
import type { Finding } from './findings.ts';

/**
 * A typed placeholder, `<secret:aws-access-key#3f2a>` or `<pii:email#91c0>`: what the value was
 * and a tag that is the same for the same value within one conversation (keyed by the
 * conversation, lambdas/redaction/conversation-scope.ts), so evidence stays readable ("the same key failed in both services") without
 * the value. The tag is 16 bits of an HMAC: it is computed where the text is, in any function,
 * with nothing stored; it cannot be reversed, and a guessed value matches one tag in 65,536.
 */
export function placeholder(finding: Pick<Finding, 'family' | 'kind'>, value: string, scope: string): string {
  const tag = createHmac('sha256', `redaction:${scope}`)
    .update(canonical(finding.kind, value))
    .digest('hex')
    .slice(0, 4);
  return `<${finding.family}:${finding.kind}#${tag}>`;
}

/** A card or an IBAN is the same value printed in groups or not: its tag is of the characters alone. */
function canonical(kind: string, value: string): string {
  return kind === 'card' || kind === 'iban' ? value.replace(/[ -]/g, '').toUpperCase() : value;
}

/**
 * A placeholder as written by `placeholder` (so text redacted once is left alone the next time),
 * also in the form Slack's mrkdwn escaping gives it (`&lt;pii:email#91c0&gt;`): a text rendered
 * for Slack after one door redacted it passes the Slack door next, and a placeholder it does not
 * recognise would be taken for a `key: value` secret and lose its kind.
 */
export const PLACEHOLDER = /(?:<|&lt;)(?:secret|pii):[a-z0-9-]+#[0-9a-f]{4}(?:>|&gt;)/g;

/**
 * How many values `text` holds redacted, by `family:kind` (`secret:aws-access-key`): its
 * distinct placeholders, whichever door made them, so a stored message read back says what it
 * holds as well as a log line redacted just now. Never the values.
 */
export function redactedValuesIn(text: string): Record<string, number> {
  const counts: Record<string, number> = {};
  const seen = new Set<string>();
  for (const [match] of text.matchAll(PLACEHOLDER)) {
    const bare = match.replace(/^(?:<|&lt;)|(?:>|&gt;)$/g, '');
    if (seen.has(bare)) continue;
    seen.add(bare);
    const key = bare.slice(0, bare.indexOf('#'));
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
