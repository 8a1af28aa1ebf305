import * as z from 'zod';
import { InvalidHistoryReadersError } from './errors.ts';

/**
 * The conversation history served as a read-only MCP server (docs/mcp.md, "The history as an MCP
 * server"): whether the stack deploys it, and which IAM principals may read which workflows'
 * conversations. The stack validates this at synth and hands the readers to the server's
 * function as `HISTORY_MCP_READERS` (JSON).
 */

const ACCOUNT = String.raw`\d{12}`;
const PARTITION = 'aws(?:-cn|-us-gov)?';
/** An IAM role or user ARN (a path allowed), or an account id. */
const PRINCIPAL = new RegExp(
  String.raw`^(?:${ACCOUNT}|arn:${PARTITION}:iam::${ACCOUNT}:(?:role|user)/(?:[\w+=,.@-]+/)*[\w+=,.@-]{1,64})$`,
);

export const HistoryReader = z.strictObject({
  /**
   * Who: an IAM role ARN (`arn:aws:iam::123456789012:role/oncall`, which its assumed-role
   * sessions match), an IAM user ARN, or an account id (every principal of that account).
   */
  principal: z
    .string()
    .regex(
      PRINCIPAL,
      'expected an IAM role or user ARN (arn:aws:iam::123456789012:role/NAME) or a 12-digit account id',
    ),
  /** The workflows whose conversations it may read (`incident_investigation`...). */
  workflows: z
    .array(z.string().regex(/^[a-z][a-z0-9_]*$/, 'expected a workflow name'))
    .min(1)
    .max(50),
});
export type HistoryReader = z.infer<typeof HistoryReader>;

export const HistoryServerSettings = z.strictObject({
  /** Deploy the server (a Lambda Function URL with IAM auth). @default false */
  enabled: z.boolean().default(false),
  /** Who may read what; a caller matching no entry is refused. @default [] */
  readers: z.array(HistoryReader).max(100).default([]),
});
export type HistoryServerSettings = z.infer<typeof HistoryServerSettings>;

/** The variable the stack sets on the server's function: the JSON `readers`. */
export const HISTORY_READERS_ENV = 'HISTORY_MCP_READERS';

/** The readers from the environment; a value that does not parse stops the function rather than refusing everyone silently. */
export function historyReaders(env: NodeJS.ProcessEnv = process.env): HistoryReader[] {
  try {
    return z.array(HistoryReader).parse(JSON.parse(env[HISTORY_READERS_ENV] ?? '[]'));
  } catch (cause) {
    throw new InvalidHistoryReadersError(HISTORY_READERS_ENV, { cause });
  }
}
