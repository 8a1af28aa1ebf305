/**
 * What the console's list and header say of a conversation, in words for people: its subject
 * (what it is about) and its state as a sentence, instead of the workflow's name and the
 * kernel's raw status and phase names.
 */

/** The conversation's state as a sentence: the one table the App Home uses too. */
export { statusLabel as readableStatus } from '../../lambdas/shared/status-labels.ts';

/** The longest subject shown in the list; the full text is in the link's title. */
const SUBJECT_CHARS = 70;

/**
 * A subject line from the text that began the conversation: its first line, without Slack's
 * mention and link markup, cut at a word near `SUBJECT_CHARS`.
 */
export function subjectLine(
  text: string | undefined,
  /** A user's name by id (the console's `userName`); without one a mention shows its id. */
  nameOf: (id: string) => string = (id) => id,
): string | undefined {
  if (text === undefined) return undefined;
  const plain = text
    .replace(/<@([A-Z0-9_]+)(?:\|([^>]+))?>/g, (_all, id: string, name?: string) => `@${name ?? nameOf(id)}`)
    .replace(/<([^|>]+)\|([^>]+)>/g, '$2')
    .replace(/<([^>]+)>/g, '$1')
    // Internal markers (the sandbox demo model's `[offline demo model]`) name no subject.
    .replace(/^(?:\s*\[[a-z][a-z0-9 -]*\])+\s*/gm, '');
  const first =
    plain
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? '';
  if (first === '') return undefined;
  if (first.length <= SUBJECT_CHARS) return first;
  const cut = first.slice(0, SUBJECT_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${(space > SUBJECT_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** Where a conversation that did not begin in Slack came from, by its first anchor. */
export function originOf(anchor: { channel: string; threadTs: string } | undefined): string | undefined {
  if (anchor === undefined) return undefined;
  const github = /^github:(.+)$/.exec(anchor.channel);
  if (github) return `GitHub ${github[1]}#${anchor.threadTs}`;
  const alert = /^alert:(.+)$/.exec(anchor.channel);
  if (alert) return `Alert from ${alert[1]} (${anchor.threadTs})`;
  return undefined;
}
