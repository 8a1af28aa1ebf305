import * as z from 'zod';
import type { FakeSlack } from './fake-slack.ts';
import type { EphemeralMessage, SlackFile, SlackUser, StoredSlackMessage } from './types.ts';

/**
 * What a sandbox that keeps its state (`--state`) saves of the fake workspace, and takes back
 * when it starts: every channel's messages (with reactions, edits, files and metadata), the
 * ephemeral messages, the users who joined by posting, the shared files, and where each
 * channel's timestamps stand (a message after a restart is still newer than every earlier one).
 * Restored messages are not announced again: the ingress had them before the stop.
 */

const messageSchema = z
  .object({
    channel: z.string(),
    ts: z.string(),
    user: z.string(),
    text: z.string(),
    reactions: z.array(z.tuple([z.string(), z.array(z.string())])),
  })
  .passthrough();

export const savedWorkspaceSchema = z.object({
  messages: z.array(messageSchema),
  lastMicros: z.array(z.tuple([z.string(), z.number()])),
  ephemerals: z.array(z.object({ channel: z.string(), user: z.string() }).passthrough()),
  users: z.array(z.object({ id: z.string(), name: z.string() }).passthrough()),
  files: z.array(z.object({ id: z.string() }).passthrough()),
  fileCount: z.number(),
});

/** The workspace's records as saved (checked with `savedWorkspaceSchema` when read). */
export interface SavedWorkspace {
  readonly messages: (Omit<StoredSlackMessage, 'reactions'> & { reactions: [string, string[]][] })[];
  readonly lastMicros: [string, number][];
  readonly ephemerals: EphemeralMessage[];
  readonly users: SlackUser[];
  readonly files: SlackFile[];
  readonly fileCount: number;
}

export function saveWorkspace(workspace: FakeSlack): SavedWorkspace {
  const messages = [...workspace.history.values()].flat().map((message) => ({
    ...message,
    reactions: [...message.reactions],
  }));
  return {
    messages,
    lastMicros: [...workspace.lastMicros],
    ephemerals: [...workspace.ephemeralList],
    users: [...workspace.userList.values()],
    files: [...workspace.uploads.shared],
    fileCount: workspace.uploads.count,
  };
}

/**
 * Takes the saved records back into a fresh workspace. A message of a channel this workspace
 * does not have (the configuration changed) is left out, and said so in the returned list.
 */
export function restoreWorkspace(workspace: FakeSlack, saved: SavedWorkspace): string[] {
  const dropped: string[] = [];
  for (const message of saved.messages) {
    const channel = workspace.history.get(message.channel);
    if (!channel) {
      dropped.push(`${message.channel} ${message.ts}`);
      continue;
    }
    channel.push({ ...message, reactions: new Map(message.reactions) });
  }
  for (const [channel, micros] of saved.lastMicros) {
    workspace.lastMicros.set(channel, Math.max(micros, workspace.lastMicros.get(channel) ?? 0));
  }
  workspace.ephemeralList.push(...saved.ephemerals);
  for (const user of saved.users) {
    if (!workspace.userList.has(user.id)) workspace.userList.set(user.id, user);
  }
  workspace.uploads.shared.push(...saved.files);
  workspace.uploads.count = Math.max(workspace.uploads.count, saved.fileCount);
  return dropped;
}
