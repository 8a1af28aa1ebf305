import { CODE_TOOLS_ENV } from './config.ts';
import { CODE_TOOL_NAMES, type CodeToolName, codeTools } from './tools.ts';

/**
 * What the stack and the agent profiles need to wire the code tools, in one place (the stack
 * is not wired here: `infra/` is being restructured in parallel).
 *
 * The stack:
 * - one function from `CODE_TOOLS_FUNCTION` (entry, timeout, memory, `/tmp` size), with the
 *   environment variables of `CODE_TOOLS_ENV` (config.ts: `CODE_REPOSITORY` required,
 *   `GITHUB_SECRET_ARN`, `GITHUB_BASE_URL`, the optional limits) plus `TABLE_NAME`;
 * - IAM: `secretsmanager:GetSecretValue` on the GitHub secret (`grantRead`), and
 *   `dynamodb:UpdateItem` on the conversations table (the cost ledger, as every task handler;
 *   `grantReadWriteData` is what the other task functions get). No other AWS permission: the
 *   function talks to GitHub only;
 * - AgentTurn's `TOOL_FUNCTIONS`: `codeToolFunctions(fn.functionName)` merged into the map;
 * - the secret: a `ThirdPartySecret` with placeholders `{ appId, privateKey, installationId }`
 *   for a GitHub App (permissions: contents write, pull requests write, issues write,
 *   metadata read) or `{ token }` for a fine-grained token with the same permissions.
 *
 * The profiles: `READ_CODE_TOOLS` while investigating, `ALL_CODE_TOOLS` when asked for a fix,
 * `READ_ONLY_CODE_TOOLS` at most while answering a question (their `ToolSpec`s from `codeToolSpecs`).
 */

export const CODE_TOOLS_FUNCTION = {
  entry: 'lambdas/handlers/code-tools.ts',
  /**
   * A cold tarball download and unpack of a large repository takes seconds; a regular
   * expression search stops at its own limit (2 s by default) well inside this.
   */
  timeoutSeconds: 60,
  /** Unpacking and searching are CPU-bound; Lambda gives CPU in proportion to memory. */
  memoryMb: 1024,
  /** `/tmp` for the tarball cache: `CODE_CACHE_MAX_MB` (300 by default) plus one tree being unpacked. */
  ephemeralStorageMb: 1024,
  environment: CODE_TOOLS_ENV,
} as const;

export const READ_CODE_TOOLS: readonly CodeToolName[] = [
  CODE_TOOL_NAMES.listFiles,
  CODE_TOOL_NAMES.readFile,
  CODE_TOOL_NAMES.searchCode,
];

export const ALL_CODE_TOOLS: readonly CodeToolName[] = Object.values(CODE_TOOL_NAMES);

/**
 * The code tools that write nothing: reading the repository and the work branch's diff. Every
 * other code tool (`write_file`, `delete_file`, and any added later) commits on the work branch.
 */
export const READ_ONLY_CODE_TOOLS: readonly CodeToolName[] = [...READ_CODE_TOOLS, CODE_TOOL_NAMES.getDiff];

/** The `ToolSpec`s (name, description, JSON schema) of some code tools, for a profile's `tools`. */
export function codeToolSpecs(names: readonly CodeToolName[] = ALL_CODE_TOOLS) {
  return names.map((name) => codeTools[name]);
}

/** Entries of AgentTurn's `TOOL_FUNCTIONS`: every code tool served by the one function. */
export function codeToolFunctions(functionName: string): Record<CodeToolName, string> {
  return Object.fromEntries(ALL_CODE_TOOLS.map((name) => [name, functionName])) as Record<
    CodeToolName,
    string
  >;
}
