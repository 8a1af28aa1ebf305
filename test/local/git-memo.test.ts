import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runGit } from '../../local/github/git.ts';
import { ImmutableReads, MutableRead } from '../../local/github/git-memo.ts';
import { GitRepository } from '../../local/github/git-repository.ts';

const who = { name: 'Octo Cat', email: 'octo@example.com', date: '2015-11-01T10:00:00Z' };
const directories: string[] = [];
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

async function repository(): Promise<GitRepository> {
  const directory = await mkdtemp(join(tmpdir(), 'git-memo-'));
  directories.push(directory);
  return GitRepository.create(join(directory, 'r.git'), 'main');
}

async function commitFile(git: GitRepository, name: string, text: string, parents: string[] = []) {
  const blob = await git.writeBlob(Buffer.from(text));
  const tree = await git.writeTree([{ name, mode: '100644', type: 'blob', sha: blob }]);
  return git.writeCommit({ tree, parents, message: `add ${name}`, author: who, committer: who });
}

describe('a repository keeps what git answers about object names', () => {
  it('reads a commit, a tree and a blob once: they are answered with the objects removed from disk', async () => {
    const git = await repository();
    const sha = await commitFile(git, 'a.txt', 'alpha');
    const commit = await git.readCommit(sha);
    const [entry] = await git.listTree(commit.tree);
    const blob = await git.readBlob(entry?.sha ?? '');
    await rm(join(git.gitDir, 'objects'), { recursive: true });

    expect(await git.readCommit(sha)).toEqual(commit);
    expect(await git.listTree(commit.tree)).toEqual([entry]);
    expect((await git.readBlob(entry?.sha ?? '')).toString()).toBe('alpha');
    expect(blob.toString()).toBe('alpha');
  });

  it('gives each caller its own copy', async () => {
    const git = await repository();
    const sha = await commitFile(git, 'a.txt', 'alpha');
    const first = await git.readCommit(sha);
    first.parents.push('changed by a caller');
    const blob = await git.readBlob((await git.listTree(first.tree))[0]?.sha ?? '');
    blob.write('ALPHA');

    expect((await git.readCommit(sha)).parents).toEqual([]);
    expect((await git.readBlob((await git.listTree(first.tree))[0]?.sha ?? '')).toString()).toBe('alpha');
  });

  it('does not keep "no such object": an object written later is found', async () => {
    const git = await repository();
    // The blob "a" (`printf a | git hash-object --stdin`).
    const sha = '2e65efe2a145dda7ee51d1741299f848e5bf752e';
    expect(await git.objectType(sha)).toBeUndefined();
    expect(await git.writeBlob(Buffer.from('a'))).toBe(sha);
    expect(await git.objectType(sha)).toBe('blob');
  });

  it('answers refs from what it kept, and anew after it writes a ref', async () => {
    const git = await repository();
    const first = await commitFile(git, 'a.txt', 'alpha');
    await git.setRef('refs/heads/main', first, null);
    expect(await git.resolveCommit('refs/heads/main')).toBe(first);
    const second = await commitFile(git, 'b.txt', 'beta', [first]);
    await git.setRef('refs/heads/main', second, first);
    await git.setRef('refs/heads/topic', first, null);

    expect(await git.resolveCommit('refs/heads/main')).toBe(second);
    expect((await git.refs()).map((r) => `${r.ref} ${r.sha}`)).toEqual([
      `refs/heads/main ${second}`,
      `refs/heads/topic ${first}`,
    ]);
    await git.deleteRef('refs/heads/topic');
    expect(await git.ref('refs/heads/topic')).toBeUndefined();
    expect(await git.resolveCommit('refs/heads/topic')).toBeUndefined();
  });
});

describe('revisions resolved from the kept refs', () => {
  it('resolves a short name in the order git does (a tag before a branch of the same name)', async () => {
    const git = await repository();
    const first = await commitFile(git, 'a.txt', 'alpha');
    const second = await commitFile(git, 'b.txt', 'beta', [first]);
    await git.setRef('refs/heads/main', first, null);
    await git.setRef('refs/heads/same', first, null);
    await git.setRef('refs/tags/same', second, null);
    await git.setRef('refs/heads/feature/x', second, null);

    const byGit = async (rev: string) =>
      (await runGit(git.gitDir, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`])).toString().trim();
    for (const rev of ['main', 'same', 'feature/x', 'heads/same', 'tags/same', 'refs/heads/same']) {
      expect(await git.resolveCommit(rev), rev).toBe(await byGit(rev));
    }
    expect(await git.resolveCommit('same')).toBe(second);
    expect(await git.resolveCommit('absent')).toBeUndefined();
    expect(await git.resolveCommit(first.slice(0, 12))).toBe(first);
  });
});

describe('ImmutableReads and MutableRead', () => {
  it('keeps an answer, but neither a refused one nor a failure', async () => {
    const reads = new ImmutableReads();
    let calls = 0;
    const read = async () => {
      calls += 1;
      if (calls === 1) throw new Error('git failed');
      return calls;
    };
    await expect(reads.get('k', read)).rejects.toThrow('git failed');
    expect(await reads.get('k', read)).toBe(2);
    expect(await reads.get('k', read)).toBe(2);
    expect(
      await reads.get(
        'absent',
        async () => undefined,
        (v) => v !== undefined,
      ),
    ).toBeUndefined();
    expect(
      await reads.get(
        'absent',
        async () => 'found',
        (v) => v !== undefined,
      ),
    ).toBe('found');
  });

  it('never serves a read that overlapped a write once the write has ended', async () => {
    const list = new MutableRead<string[]>();
    let value = ['old'];
    let finishWrite: () => void = () => {};
    const writing = list.changing(
      () =>
        new Promise<void>((resolve) => {
          finishWrite = () => {
            value = ['new'];
            resolve();
          };
        }),
    );
    // A read while the write runs may see the old value...
    expect(await list.get(async () => value)).toEqual(['old']);
    finishWrite();
    await writing;
    // ...but is not kept past the write's end.
    expect(await list.get(async () => value)).toEqual(['new']);
  });
});
