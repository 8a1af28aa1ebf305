/** Errors of the history MCP server. Each sets `name`, which is what the logs and Lambda's error type show. */

/** `HISTORY_MCP_READERS` does not hold a list of readers: a deployment defect, never a reason to refuse everyone silently. */
export class InvalidHistoryReadersError extends Error {
  override readonly name = 'InvalidHistoryReadersError';
  constructor(variable: string, options: { cause: unknown }) {
    super(`${variable} is not a JSON list of { principal, workflows } readers`, options);
  }
}
