import type { HandOffInput } from './contract.ts';

/**
 * Who may answer the pipeline's questions and escalations, in code: a developer in its Slack
 * thread (the Router gives the role only to members), or someone with write access to the
 * repository on the issue (GitHub's permission, asked per commenter).
 */

type Answer = NonNullable<HandOffInput['messages']>[number];

export const WRITERS: ReadonlySet<string> = new Set(['admin', 'maintain', 'write']);

/** The answers that count; the rest are left out (and logged by the caller). */
export async function acceptedAnswers(
  messages: readonly Answer[],
  permissionOf: (login: string) => Promise<string>,
): Promise<{ accepted: Answer[]; refused: Answer[] }> {
  const accepted: Answer[] = [];
  const refused: Answer[] = [];
  for (const message of messages) {
    const fromGithub = message.channel.startsWith('github:');
    const ok = fromGithub
      ? WRITERS.has(await permissionOf(githubLogin(message.senderId)).catch(() => 'none'))
      : message.senderType === 'developer';
    (ok ? accepted : refused).push(message);
  }
  return { accepted, refused };
}

/** The Router stores a GitHub sender as `github:<login>`. */
export function githubLogin(senderId: string): string {
  return senderId.replace(/^github:/, '');
}
