import * as z from 'zod';

/**
 * What the redaction layer looks for besides secrets (docs/configuration.md, `redaction`).
 * Secrets are always redacted; each class of personal data is redacted when named here.
 */
export const PII_CLASSES = ['email', 'phone', 'card', 'iban', 'ip'] as const;
export type PiiClass = (typeof PII_CLASSES)[number];

/** Cards only: a number that passes the Luhn check is never evidence an investigation needs. */
export const DEFAULT_PII: readonly PiiClass[] = ['card'];

/** Longest allow-list entry: a value, never a pattern, so it is matched exactly. */
const MAX_ALLOWED_LENGTH = 512;

export const RedactionSettings = z.strictObject({
  /**
   * Classes of personal data to redact: `email`, `phone`, `card` (Luhn-checked), `iban`
   * (mod-97-checked), `ip` (IPv4 and IPv6 addresses).
   * @default ['card']
   */
  pii: z
    .array(z.enum(PII_CLASSES))
    .default([...DEFAULT_PII])
    .transform((classes) => [...new Set(classes)]),
  /**
   * Values that look secret or personal and are not (a public test key, the support address):
   * left as they are wherever they appear. Exact values, case-sensitive.
   * @default []
   */
  allow: z.array(z.string().min(1).max(MAX_ALLOWED_LENGTH)).default([]),
});
export type RedactionSettings = z.infer<typeof RedactionSettings>;

export const DEFAULT_REDACTION: RedactionSettings = RedactionSettings.parse({});
