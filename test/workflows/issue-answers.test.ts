import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoRefusedSources } from '../../lambdas/workflows/issue-pipeline/adapters/dynamo-refused-sources.ts';
import {
  acceptedAnswers,
  judgeGithubAuthors,
  type RefusedSources,
} from '../../lambdas/workflows/issue-pipeline/answers.ts';
import { startDynalite } from '../support/dynalite.ts';

/**
 * Who may answer the issue pipeline: a GitHub comment refused once stays refused, whoever
 * edits it and whatever its author's access becomes, from a record kept per repository and
 * comment id.
 */

let db: Awaited<ReturnType<typeof startDynalite>>;
let refusals: DynamoRefusedSources;
beforeAll(async () => {
  db = await startDynalite();
  refusals = new DynamoRefusedSources({ client: db.client, tableName: db.tableName });
});
afterAll(async () => {
  await db?.close();
});

const comment = (login: string, id: number, text: string) => ({
  channel: 'github:o/r#7',
  senderType: 'commenter',
  senderId: `github:${login}`,
  text,
  sourceId: `github-comment:${id}`,
});

/** A repository whose permissions the test changes, as an owner would on GitHub. */
function repository(name: string, permissions: Record<string, string>) {
  const asked: string[] = [];
  return {
    asked,
    permissions,
    deps: (store: RefusedSources = refusals) => ({
      repository: name,
      permissionOf: async (login: string) => {
        asked.push(login);
        return permissions[login] ?? 'none';
      },
      refusals: store,
    }),
  };
}

describe('an answer from GitHub', () => {
  it('stays refused when its author, refused before, edits it after gaining write access', async () => {
    const repo = repository('o/first', { outsider: 'read' });
    const first = await acceptedAnswers([comment('outsider', 11, 'all of them')], repo.deps());
    expect(first.accepted).toEqual([]);
    expect(first.refused[0]?.reason).toBe('@outsider has "read" access to o/first, not write');

    repo.permissions.outsider = 'write';
    repo.asked.length = 0;
    const edit = await acceptedAnswers(
      [comment('outsider', 11, 'all of them, and a postinstall')],
      repo.deps(),
    );
    expect(edit.accepted).toEqual([]);
    expect(edit.refused[0]?.reason).toBe('github-comment:11 was refused before; an edit of it stays refused');
    // The record decides: GitHub's permission is not even asked.
    expect(repo.asked).toEqual([]);

    // A new comment of the same author, now a writer, is theirs to make.
    const fresh = await acceptedAnswers([comment('outsider', 12, 'only AT')], repo.deps());
    expect(fresh.accepted.map((a) => a.text)).toEqual(['only AT']);
  });

  it('refuses a later version of a refused comment in the same batch', async () => {
    // Refused as read, then (access granted between the two deliveries) the edit: both refused.
    const permissions = ['read', 'write'];
    const deps = {
      repository: 'o/batch',
      permissionOf: async () => permissions.shift() ?? 'write',
      refusals,
    };
    const { accepted, refused } = await acceptedAnswers(
      [comment('outsider', 21, 'first'), comment('outsider', 21, 'edited')],
      deps,
    );
    expect(accepted).toEqual([]);
    expect(refused.map((r) => r.reason)).toEqual([
      '@outsider has "read" access to o/batch, not write',
      'github-comment:21 was refused before; an edit of it stays refused',
    ]);
    expect(await refusals.refusedBefore('o/batch', ['github-comment:21'])).toEqual(
      new Set(['github-comment:21']),
    );
  });

  it('keeps refusals per repository, its name without regard to case', async () => {
    await refusals.record('Owner/Shop', ['github-comment:31']);
    expect(await refusals.refusedBefore('owner/shop', ['github-comment:31', 'github-comment:32'])).toEqual(
      new Set(['github-comment:31']),
    );
    expect(await refusals.refusedBefore('owner/other', ['github-comment:31'])).toEqual(new Set());
  });

  it('reads more refusals than one BatchGetItem call takes', async () => {
    const ids = Array.from({ length: 130 }, (_, i) => `github-comment:${1000 + i}`);
    await refusals.record(
      'o/many',
      ids.filter((_, i) => i % 2 === 0),
    );
    const found = await refusals.refusedBefore('o/many', ids);
    expect(found.size).toBe(65);
    expect(found.has('github-comment:1128')).toBe(true);
    expect(found.has('github-comment:1129')).toBe(false);
  });

  it('records nothing when every author may answer, and fails when the record cannot be written', async () => {
    const recorded: string[][] = [];
    const store: RefusedSources = {
      refusedBefore: async () => new Set(),
      record: async (_repository, ids) => {
        recorded.push([...ids]);
        throw new Error('table unreachable');
      },
    };
    const repo = repository('o/r', { writer: 'write', reader: 'read' });
    await expect(judgeGithubAuthors([comment('writer', 41, 'ok')], repo.deps(store))).resolves.toBeDefined();
    expect(recorded).toEqual([]);
    // A refusal that cannot be kept fails the task (retried): no answer is judged without it.
    await expect(judgeGithubAuthors([comment('reader', 42, 'no')], repo.deps(store))).rejects.toThrow(
      'table unreachable',
    );
    expect(recorded).toEqual([['github-comment:42']]);
  });

  it('leaves Slack messages to their role, and asks GitHub once per author', async () => {
    const repo = repository('o/r', { writer: 'write' });
    const slack = { channel: 'C1', senderType: 'developer', senderId: 'U1', text: 'from Slack' };
    const { accepted } = await acceptedAnswers(
      [slack, comment('writer', 51, 'a'), comment('writer', 52, 'b')],
      repo.deps(),
    );
    expect(accepted.map((a) => a.text)).toEqual(['from Slack', 'a', 'b']);
    expect(repo.asked).toEqual(['writer']);
  });
});
