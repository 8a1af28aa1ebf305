import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoWorkBranches } from '../../lambdas/adapters/dynamo-work-branches.ts';
import { keys } from '../../lambdas/kernel/keys.ts';
import { assertOwnedBranch } from '../../lambdas/tools/code/branch-ownership.ts';
import { runCodeTool } from '../../lambdas/tools/code/run-code-tool.ts';
import { bugWorkBranch } from '../../lambdas/workflows/bug-investigation/fix/work-branch.ts';
import { startDynalite } from '../support/dynalite.ts';
import { type CodeToolsWorld, output, refusal, startCodeToolsWorld } from '../tools/code-tools-support.ts';

/**
 * The attack: invoking the code tools directly (as anything that can invoke the function
 * can), for one conversation, with a tool context naming another conversation's work branch.
 * The tools own no branch by being told about it: they refuse, and nothing is written.
 */

let world: CodeToolsWorld;
let db: Awaited<ReturnType<typeof startDynalite>>;
let records: DynamoWorkBranches;

beforeAll(async () => {
  [world, db] = await Promise.all([startCodeToolsWorld('ownership'), startDynalite()]);
  records = new DynamoWorkBranches({ client: db.client, tableName: db.tableName });
  const doc = DynamoDBDocumentClient.from(db.client);
  for (const id of ['bug-victim', 'bug-attacker', 'issue-victim', 'issue-attacker']) {
    await doc.send(
      new PutCommand({ TableName: db.tableName, Item: { ...keys.conversation(id), workflow: 'x' } }),
    );
  }
});
afterAll(async () => {
  await Promise.all([world?.close(), db?.close()]);
});

const invoke = (tool: string, args: unknown, conversationId: string, workBranch: string) =>
  runCodeTool(
    { tool, args, conversationId, context: { workBranch } },
    { ...world.deps(), workBranches: records },
  );

describe('a code tool invoked with another conversation’s branch', () => {
  it('refuses a write to another bug conversation’s branch, and its branch keeps its head', async () => {
    const victim = bugWorkBranch('bug-victim');
    output(await invoke('write_file', { path: 'fix.md', content: 'the real fix\n' }, 'bug-victim', victim));
    const head = await world.head(victim);
    const before = await world.branches();

    const write = refusal(
      await invoke('write_file', { path: 'fix.md', content: 'evil\n' }, 'bug-attacker', victim),
    );
    const remove = refusal(await invoke('delete_file', { path: 'package.json' }, 'bug-attacker', victim));
    const read = refusal(await invoke('read_file', { path: 'fix.md' }, 'bug-attacker', victim));

    const reason = `is refused: it is not a work branch of conversation "bug-attacker" (its own: "${bugWorkBranch('bug-attacker')}")`;
    expect(write).toBe(`write_file: writing to branch ${JSON.stringify(victim)} ${reason}`);
    expect(remove).toBe(`delete_file: writing to branch ${JSON.stringify(victim)} ${reason}`);
    expect(read).toBe(`read_file: writing to branch ${JSON.stringify(victim)} ${reason}`);
    expect(await world.head(victim)).toBe(head);
    expect(await world.branches()).toEqual(before);
  });

  it('refuses the pipeline branch recorded for another conversation, and allows it to its own', async () => {
    await records.record('issue-victim', 'agents/issue-7');
    const before = await world.branches();

    const stolen = refusal(
      await invoke('write_file', { path: 'a.md', content: 'x\n' }, 'issue-attacker', 'agents/issue-7'),
    );

    expect(stolen).toMatch(
      /^write_file: writing to branch "agents\/issue-7" is refused: it is not a work branch/,
    );
    expect(await world.branches()).toEqual(before);
    output(await invoke('write_file', { path: 'a.md', content: 'x\n' }, 'issue-victim', 'agents/issue-7'));
    expect(await world.head('agents/issue-7')).toBeDefined();
  });

  it('refuses any agents/ branch the conversation was never given, even one nobody owns', async () => {
    const before = await world.branches();
    const made = refusal(
      await invoke('write_file', { path: 'a.md', content: 'x\n' }, 'issue-attacker', 'agents/issue-8'),
    );
    expect(made).toMatch(/is refused: it is not a work branch of conversation "issue-attacker"/);
    expect(await world.branches()).toEqual(before);
  });

  it('keeps a recorded work branch: recording another one for the conversation is refused', async () => {
    await records.record('issue-victim', 'agents/issue-7');
    await expect(records.record('issue-victim', 'agents/issue-9')).rejects.toMatchObject({
      name: 'WorkBranchTakenError',
      message: 'conversation issue-victim already has another work branch than agents/issue-9',
      conversationId: 'issue-victim',
      branch: 'agents/issue-9',
    });
    expect(await records.recorded('issue-victim')).toBe('agents/issue-7');
  });

  it('derives the bug branch the same way the bug workflow names it', async () => {
    // With nothing recorded, the only branch a conversation owns is the one derived from its id.
    await expect(
      assertOwnedBranch(bugWorkBranch('bug-victim'), 'bug-victim', 'agents/'),
    ).resolves.toBeUndefined();
  });
});
