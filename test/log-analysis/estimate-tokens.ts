/**
 * The token estimate the log summary keeps within (`SummaryOptions.tokenBudget`): one token per
 * four characters, rounded up.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
