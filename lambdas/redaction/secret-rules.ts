import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { rules } from '@secretlint/secretlint-rule-preset-recommend';
import type { Finding } from './findings.ts';

// secretlint profiles every rule on every text by default: a performance mark per rule and run,
// kept in the process's global performance buffer and in the profiler's own lists, which nothing
// ever clears. A warm Lambda redacting every prompt and tool result would grow without end (a
// million entries in one test worker), and the marks cost time on every call. Off.
secretLintProfiler.setEnabled(false);

/**
 * Secrets found by secretlint's recommended rule set (`@secretlint/secretlint-rule-preset-recommend`,
 * maintained upstream: AWS, GCP, GitHub, GitLab, Slack, Stripe, npm, private keys, database
 * connection strings, basic auth in URLs and more). Its `filter-comments` rule is left out: a
 * `secretlint-disable` comment in a file the agent reads must not hide a secret from redaction.
 */
const SKIPPED_RULES = new Set(['@secretlint/secretlint-rule-filter-comments']);

/**
 * The AWS rule reports access key ids (`AKIA...`) and `account_id = ...` only when asked: an
 * id names a credential, and a prompt has no use for it.
 */
const RULE_OPTIONS: Record<string, { options: Record<string, unknown> }> = {
  '@secretlint/secretlint-rule-aws': { options: { enableIDScanRule: true } },
};

const CONFIG: Parameters<typeof lintSource>[0]['options']['config'] = {
  rules: rules
    .filter((rule) => !SKIPPED_RULES.has(rule.meta.id))
    .map((rule) => ({ id: rule.meta.id, rule, ...(RULE_OPTIONS[rule.meta.id] ?? {}) })),
};

/** The rule set's version, for the closing record and the docs. */
export const SECRET_RULE_SET = '@secretlint/secretlint-rule-preset-recommend 13.0.7';

/** Kinds whose message id reads badly when hyphenated. */
const KIND_OF_MESSAGE: Record<string, string> = {
  AWSAccessKeyID: 'aws-access-key',
  AWSSecretAccessKey: 'aws-secret-key',
  AWSAccountID: 'aws-account-id',
  IncomingWebhook: 'slack-webhook',
  MongoDBConnection: 'connection-string',
  MySQLConnection: 'connection-string',
  PostgreSQLConnection: 'connection-string',
  PackageJSON_xOauthToken: 'npm-token',
  Npmrc_authToken: 'npm-token',
};

/** `GITHUB_TOKEN` -> `github-token`, `PrivateKeyJSON` -> `private-key-json`. */
export function kindOfMessage(messageId: string): string {
  return (
    KIND_OF_MESSAGE[messageId] ??
    messageId
      .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
      .replace(/_/g, '-')
      .toLowerCase()
  );
}

/**
 * The rule set's regular expressions are the rule authors' and run on JavaScript's engine, so
 * their time is bounded here by the size of what each one sees: the text is scanned in pieces
 * of at most `PIECE_CHARS`, cut at line ends (a PEM key spans lines), a longer line in windows
 * that overlap by `OVERLAP_CHARS` so a token on a cut is still whole in one window.
 */
export const PIECE_CHARS = 16_384;
const OVERLAP_CHARS = 512;

export function pieces(text: string, size = PIECE_CHARS): Array<{ offset: number; text: string }> {
  const out: Array<{ offset: number; text: string }> = [];
  let start = 0;
  while (start < text.length) {
    if (text.length - start <= size) {
      out.push({ offset: start, text: text.slice(start) });
      break;
    }
    const cut = text.lastIndexOf('\n', start + size - 1);
    if (cut >= start) {
      out.push({ offset: start, text: text.slice(start, cut + 1) });
      start = cut + 1;
    } else {
      out.push({ offset: start, text: text.slice(start, start + size) });
      start += size - OVERLAP_CHARS;
    }
  }
  return out;
}

/**
 * Short texts the rule set found nothing in. A call of secretlint sets up every rule anew (its
 * context, its event handlers), which costs far more than scanning a short text, and the same
 * short values (a status, a role, a name, a short reply) are written again and again. The rules
 * are fixed when this module loads, so a text found clean once is clean again. Only clean texts
 * are kept, never one holding a secret; past `CLEAN_MAX_ENTRIES` the set starts over.
 */
const CLEAN_MAX_CHARS = 256;
const CLEAN_MAX_ENTRIES = 4_096;
const clean = new Set<string>();

/** The secrets in `text`, by the rule set. */
export async function findSecrets(text: string): Promise<Finding[]> {
  const remembered = text.length <= CLEAN_MAX_CHARS;
  if (remembered && clean.has(text)) return [];
  const found: Finding[] = [];
  for (const piece of pieces(text)) {
    const result = await lintSource({
      source: { content: piece.text, filePath: 'redaction.txt', contentType: 'text' },
      options: { config: CONFIG, noPhysicFilePath: true },
    });
    for (const message of result.messages) {
      const [start, end] = valueRange(piece.text, message.range, message.data);
      found.push({
        start: piece.offset + start,
        end: piece.offset + end,
        family: 'secret',
        kind: kindOfMessage(message.messageId),
      });
    }
  }
  if (remembered && found.length === 0) {
    if (clean.size >= CLEAN_MAX_ENTRIES) clean.clear();
    clean.add(text);
  }
  return found;
}

/**
 * Where the secret itself is. A rule reports a range and the matched value (`data`); for
 * some rules (the AWS secret key's) the range starts at the key's name, not at the value, so
 * the value is looked for from the range's start and its own place used when found near it.
 */
function valueRange(
  text: string,
  range: readonly [number, number],
  data: Record<string, unknown> | undefined,
): [number, number] {
  const [start, end] = range;
  for (const value of Object.values(data ?? {})) {
    if (typeof value !== 'string' || value.length < 8) continue;
    const at = text.indexOf(value, start);
    if (at >= 0 && at <= end) return [at, at + value.length];
  }
  return [start, end];
}
