import type { Octokit } from '@octokit/rest';
import type { Sandbox } from '../../local/sandbox.ts';
import { sandboxDriver } from '../support/sandbox-driver.ts';

/** Attack-suite helpers: a press on a bot message's button, and a commit made beside the agents' tools. */

export const REPO = { owner: 'demo', repo: 'webshop' } as const;

type Button = { action_id: string; value: string };

/** The buttons of a posted message. */
export function buttonsOf(sandbox: Sandbox, channel: string, ts: string): Button[] {
  const message = sandbox.slack.workspace.find(channel, ts);
  const blocks = (message.blocks ?? []) as { type: string; elements?: Button[] }[];
  return blocks.find((b) => b.type === 'actions')?.elements ?? [];
}

/** `user` presses the button of `ts` whose value says `decision`. */
export async function press(sandbox: Sandbox, channel: string, user: string, ts: string, decision: string) {
  const button = buttonsOf(sandbox, channel, ts).find((b) => b.value.includes(decision));
  if (button === undefined) throw new Error(`no ${decision} button on ${ts}`);
  const response = await sandboxDriver(() => sandbox).press({
    channel,
    user,
    messageTs: ts,
    actionId: button.action_id,
    value: button.value,
  });
  if (!response.ok) throw new Error(`the press answered ${response.status}`);
}

export type Entry = { path: string; mode: '100644' | '100755' | '120000'; content?: string; sha?: null };

/**
 * One commit on `branch` (created from the default branch when missing) through the Git Data
 * API: what a tool that went wrong, or anyone with push access, could put on a work branch
 * while an agent works. The guards must judge the branch as it is, whoever wrote it.
 */
export async function commitOnBranch(octokit: Octokit, branch: string, entries: Entry[], message: string) {
  const ref = await octokit.rest.git.getRef({ ...REPO, ref: `heads/${branch}` }).catch(() => undefined);
  const parentSha =
    ref?.data.object.sha ?? (await octokit.rest.repos.getBranch({ ...REPO, branch: 'main' })).data.commit.sha;
  const { data: parent } = await octokit.rest.git.getCommit({ ...REPO, commit_sha: parentSha });
  const { data: tree } = await octokit.rest.git.createTree({
    ...REPO,
    base_tree: parent.tree.sha,
    tree: entries.map((e) => ({ ...e, type: 'blob' as const })),
  });
  const { data: commit } = await octokit.rest.git.createCommit({
    ...REPO,
    message,
    tree: tree.sha,
    parents: [parentSha],
  });
  if (ref === undefined)
    await octokit.rest.git.createRef({ ...REPO, ref: `refs/heads/${branch}`, sha: commit.sha });
  else await octokit.rest.git.updateRef({ ...REPO, ref: `heads/${branch}`, sha: commit.sha });
}
