import { createHmac } from 'node:crypto';
import type { Finding } from './findings.ts';

/**
 * A typed placeholder, `<secret:aws-access-key#3f2a>` or `<pii:email#91c0>`: what the value was
 * and a tag that is the same for the same value within one conversation (keyed by the
 * conversation), so evidence stays readable ("the same key failed in both services") without
 * the value. The tag is 16 bits of an HMAC: it is computed where the text is, in any function,
 * with nothing stored; it cannot be reversed, and a guessed value matches one tag in 65,536.
 */
export function placeholder(finding: Pick<Finding, 'family' | 'kind'>, value: string, scope: string): string {
  const tag = createHmac('sha256', `redaction:${scope}`).update(value).digest('hex').slice(0, 4);
  return `<${finding.family}:${finding.kind}#${tag}>`;
}

/** A placeholder as written by `placeholder` (so text redacted once is left alone the next time). */
export const PLACEHOLDER = /<(?:secret|pii):[a-z0-9-]+#[0-9a-f]{4}>/g;
