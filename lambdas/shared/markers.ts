/**
 * Internal markers at the start of a line of agent text: a bracketed lower-case tag such as
 * the sandbox demo model's `[offline demo model]` or the runtime's `[runtime]`. They tell a
 * reader of the transcript where a text came from, and have no place in a title or a summary
 * that people read in GitHub or Slack.
 */
const LEADING_MARKERS = /^(?:\s*\[[a-z][a-z0-9 -]*\])+\s*/gm;

/** The text without internal markers at the start of its lines. */
export function withoutMarkers(text: string): string {
  return text.replace(LEADING_MARKERS, '');
}
