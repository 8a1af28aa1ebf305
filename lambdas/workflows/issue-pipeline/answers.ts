import type { HandOffInput } from './contract.ts';

/**
 * Who may answer the pipeline's questions and escalations, in code: a developer in its Slack
 * thread (the Router gives the role only to members), or someone with write access to the
 * repository on the issue (GitHub's permission, asked per commenter). A GitHub comment refused
 * once stays refused: every later version of it (an edit, whoever makes it, even after its
 * author gained write access) is refused too, from a record kept per repository and comment.
 */

type Answer = NonNullable<HandOffInput['messages']>[number];

export const WRITERS: ReadonlySet<string> = new Set(['admin', 'maintain', 'write']);

/** The GitHub comments whose author was refused, per repository (adapters/dynamo-refused-sources.ts). */
export interface RefusedSources {
  /** Which of these (`github-comment:<id>`) were refused before. */
  refusedBefore(repository: string, sourceIds: readonly string[]): Promise<ReadonlySet<string>>;
  /** Records these as refused, for good (recording one twice is recording it once). */
  record(repository: string, sourceIds: readonly string[]): Promise<void>;
}

export interface AuthorityDeps {
  /** `owner/name` of the pipeline's repository. */
  repository: string;
  /** A login's permission on the repository (`admin`, `maintain`, `write`, `triage`, `read`, `none`). */
  permissionOf: (login: string) => Promise<string>;
  refusals: RefusedSources;
}

interface PersonMessage {
  channel: string;
  senderId: string;
  sourceId?: string | undefined;
}

/** From GitHub (an issue's channel, a `github:` sender): judged by GitHub's permission. */
const fromGithub = (m: PersonMessage) => m.channel.startsWith('github:') || m.senderId.startsWith('github:');

/**
 * Judges every GitHub message in order: undefined when its author may speak for the
 * repository, else why not. It records the comments refused
 * for the first time before answering: a later version of one, in this batch or any later one,
 * is refused without asking GitHub again.
 */
export async function judgeGithubAuthors<M extends PersonMessage>(
  messages: readonly M[],
  deps: AuthorityDeps,
): Promise<Map<M, string | undefined>> {
  const github = messages.filter(fromGithub);
  const sources = [...new Set(github.flatMap((m) => (m.sourceId === undefined ? [] : [m.sourceId])))];
  const before =
    sources.length === 0 ? new Set<string>() : await deps.refusals.refusedBefore(deps.repository, sources);
  const permissions = new Map<string, Promise<string>>();
  const permissionOf = (login: string) => {
    const known = permissions.get(login) ?? deps.permissionOf(login).catch(() => 'none');
    permissions.set(login, known);
    return known;
  };
  const refusedNow = new Set<string>();
  const verdicts = new Map<M, string | undefined>();
  for (const message of github) {
    const source = message.sourceId;
    if (source !== undefined && (before.has(source) || refusedNow.has(source))) {
      verdicts.set(message, `${source} was refused before; an edit of it stays refused`);
      continue;
    }
    const login = githubLogin(message.senderId);
    const permission = await permissionOf(login);
    if (WRITERS.has(permission)) {
      verdicts.set(message, undefined);
      continue;
    }
    verdicts.set(message, `@${login} has "${permission}" access to ${deps.repository}, not write`);
    if (source !== undefined) refusedNow.add(source);
  }
  // Recorded before anyone is answered: a failure here fails the task (retried), never lets an
  // edit through later.
  if (refusedNow.size > 0) await deps.refusals.record(deps.repository, [...refusedNow]);
  return verdicts;
}

/** The answers that count, and the rest with why (for the caller's log). */
export async function acceptedAnswers(
  messages: readonly Answer[],
  deps: AuthorityDeps,
): Promise<{ accepted: Answer[]; refused: { message: Answer; reason: string }[] }> {
  const verdicts = await judgeGithubAuthors(messages, deps);
  const accepted: Answer[] = [];
  const refused: { message: Answer; reason: string }[] = [];
  for (const message of messages) {
    const reason = verdicts.has(message)
      ? verdicts.get(message)
      : message.senderType === 'developer'
        ? undefined
        : `${message.senderId} is not a developer`;
    if (reason === undefined) accepted.push(message);
    else refused.push({ message, reason });
  }
  return { accepted, refused };
}

/** The Router stores a GitHub sender as `github:<login>`. */
export function githubLogin(senderId: string): string {
  return senderId.replace(/^github:/, '');
}
