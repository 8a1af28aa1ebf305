/** One value to replace: `[start, end)` in the text, and what it is. */
export interface Finding {
  start: number;
  end: number;
  /** `secret` (a credential) or `pii` (personal data); `placeholder` marks one already there. */
  family: 'secret' | 'pii' | 'placeholder';
  /** Lower-case, hyphenated: `aws-access-key`, `connection-password`, `email`, `card`... */
  kind: string;
}

/**
 * Keeps one finding per stretch of text: where two overlap, the earlier wins and a longer one
 * starting at the same place wins over a shorter one (a whole connection string over the
 * password inside it). Linear after the sort.
 */
export function disjoint(findings: readonly Finding[]): Finding[] {
  const sorted = [...findings].sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Finding[] = [];
  let reach = -1;
  for (const finding of sorted) {
    if (finding.end <= finding.start || finding.start < reach) continue;
    kept.push(finding);
    reach = finding.end;
  }
  return kept;
}
