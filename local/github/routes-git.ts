import * as z from 'zod';
import { GitHubApiError, notFound, unprocessable } from './errors.ts';
import { type GitRepository, isSafeRevision } from './git-repository.ts';
import type { Route, RouteContext, RouterDeps } from './router.ts';
import type { GitHubStore } from './store.ts';
import { buildTree } from './tree-builder.ts';

const Sha = z.string().regex(/^[0-9a-f]{40}$/, 'must be a 40-character hex sha');

const CreateRef = z.object({ ref: z.string(), sha: Sha });
const UpdateRef = z.object({ sha: Sha, force: z.boolean().optional() });
const CreateBlob = z.object({
  content: z.string(),
  encoding: z.enum(['utf-8', 'utf8', 'base64']).optional(),
});
const TreeEntry = z.object({
  path: z.string().min(1),
  mode: z.enum(['100644', '100755', '040000', '160000', '120000']),
  type: z.enum(['blob', 'tree', 'commit']),
  sha: Sha.nullable().optional(),
  content: z.string().optional(),
});
const CreateTree = z.object({ tree: z.array(TreeEntry), base_tree: Sha.optional() });
const Identity = z.object({ name: z.string(), email: z.string(), date: z.string().optional() });
const CreateCommit = z.object({
  message: z.string(),
  tree: Sha,
  parents: z.array(Sha).optional(),
  author: Identity.optional(),
  committer: Identity.optional(),
});

/** Git data: refs, blobs, trees and commits, each a direct git operation on the bare repository. */
export function gitDataRoutes({ store, views }: RouterDeps): Route[] {
  const getRef = async ({ repo, params }: RouteContext) => {
    const ref = await repo.git.ref(`refs/${params.ref}`);
    if (!ref) throw notFound('/git/refs#get-a-reference');
    return { status: 200, body: views.gitRef(repo, ref) };
  };
  return [
    { method: 'GET', path: '/repos/:owner/:repo/git/ref/*ref', access: 'read', handler: getRef },
    // The old spelling, still answered by GitHub.
    { method: 'GET', path: '/repos/:owner/:repo/git/refs/*ref', access: 'read', handler: getRef },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/git/matching-refs/',
      access: 'read',
      handler: async ({ repo }) => ({
        status: 200,
        body: (await repo.git.refs()).map((r) => views.gitRef(repo, r)),
      }),
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/git/matching-refs/*ref',
      access: 'read',
      handler: async ({ repo, params }) => {
        const prefix = `refs/${params.ref}`;
        const refs = (await repo.git.refs()).filter((r) => r.ref.startsWith(prefix));
        return { status: 200, body: refs.map((r) => views.gitRef(repo, r)) };
      },
    },
    {
      method: 'POST',
      path: '/repos/:owner/:repo/git/refs',
      access: 'write',
      handler: async ({ repo, body }) => {
        const input = CreateRef.parse(body);
        const name = input.ref.slice('refs/'.length);
        if (!input.ref.startsWith('refs/') || !name.includes('/') || !isSafeRevision(name)) {
          throw unprocessable(`${input.ref} is not a valid ref name.`);
        }
        if (!(await repo.git.objectType(input.sha))) throw unprocessable('Object does not exist');
        if (await repo.git.ref(input.ref)) throw unprocessable('Reference already exists');
        // Created only if still absent: of two concurrent creations, the second gets GitHub's 422.
        await repo.git.setRef(input.ref, input.sha, null).catch(async (error: unknown) => {
          const raced = await repo.git.ref(input.ref);
          throw new GitHubApiError(
            422,
            raced ? 'Reference already exists' : `${input.ref} is not a valid ref name.`,
            {
              cause: error,
            },
          );
        });
        touch(store, repo);
        const created = await repo.git.ref(input.ref);
        if (!created) throw notFound();
        return { status: 201, body: views.gitRef(repo, created) };
      },
    },
    {
      method: 'PATCH',
      path: '/repos/:owner/:repo/git/refs/*ref',
      access: 'write',
      handler: async ({ repo, params, body }) => {
        const input = UpdateRef.parse(body);
        const name = `refs/${params.ref}`;
        const current = await repo.git.ref(name);
        if (!current) throw unprocessable('Reference does not exist');
        if (!(await repo.git.objectType(input.sha))) throw unprocessable('Object does not exist');
        if (!input.force && !(await repo.git.isAncestor(current.sha, input.sha))) {
          // GitHub's answer to a non-fast-forward update without force is a 422 with this message.
          throw unprocessable('Update is not a fast forward');
        }
        // The old value goes with the update, so a concurrent writer makes this fail, not vanish.
        await repo.git.setRef(name, input.sha, current.sha).catch((error: unknown) => {
          throw new GitHubApiError(422, 'Reference cannot be updated', { cause: error });
        });
        touch(store, repo);
        const updated = await repo.git.ref(name);
        if (!updated) throw notFound();
        return { status: 200, body: views.gitRef(repo, updated) };
      },
    },
    {
      method: 'DELETE',
      path: '/repos/:owner/:repo/git/refs/*ref',
      access: 'write',
      handler: async ({ repo, params }) => {
        const name = `refs/${params.ref}`;
        if (!(await repo.git.ref(name))) throw unprocessable('Reference does not exist');
        await repo.git.deleteRef(name);
        return { status: 204 };
      },
    },
    {
      method: 'POST',
      path: '/repos/:owner/:repo/git/blobs',
      access: 'write',
      handler: async ({ repo, body }) => {
        const input = CreateBlob.parse(body);
        const content = Buffer.from(input.content, input.encoding === 'base64' ? 'base64' : 'utf8');
        const sha = await repo.git.writeBlob(content);
        return { status: 201, body: { sha, url: `${views.repoApi(repo)}/git/blobs/${sha}` } };
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/git/blobs/:sha',
      access: 'read',
      handler: async ({ repo, params }) => {
        const sha = params.sha ?? '';
        if ((await repo.git.objectType(sha)) !== 'blob') throw notFound('/git/blobs#get-a-blob');
        const content = await repo.git.readBlob(sha);
        return {
          status: 200,
          body: {
            sha,
            node_id: views.nodeId('Blob', sha),
            size: content.length,
            url: `${views.repoApi(repo)}/git/blobs/${sha}`,
            content: base64Lines(content),
            encoding: 'base64',
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/git/trees/:sha',
      access: 'read',
      handler: async ({ repo, params, query }) => {
        const tree = await treeOf(repo.git, params.sha ?? '');
        if (!tree) throw notFound('/git/trees#get-a-tree');
        const recursive = query.has('recursive') && !['0', 'false'].includes(query.get('recursive') ?? '');
        return { status: 200, body: await treeView(repo.git, tree, recursive, views.repoApi(repo)) };
      },
    },
    {
      method: 'POST',
      path: '/repos/:owner/:repo/git/trees',
      access: 'write',
      handler: async ({ repo, body }) => {
        const input = CreateTree.parse(body);
        if (input.base_tree && !(await treeOf(repo.git, input.base_tree))) {
          throw unprocessable('base_tree is not a valid tree oid');
        }
        const changes = [];
        for (const entry of input.tree) {
          if (entry.content !== undefined && entry.sha != null) {
            throw unprocessable('Must supply either tree.sha or tree.content, not both');
          }
          let sha: string | null;
          if (entry.content !== undefined) sha = await repo.git.writeBlob(Buffer.from(entry.content, 'utf8'));
          else if (entry.sha === undefined)
            throw unprocessable('Must supply either tree.sha or tree.content');
          else sha = entry.sha;
          if (sha !== null && !(await repo.git.objectType(sha)) && entry.type !== 'commit') {
            throw unprocessable(`tree.sha ${sha} is not a valid ${entry.type}`);
          }
          if (sha === null && !input.base_tree)
            throw unprocessable('A tree entry can only be removed from a base_tree');
          changes.push({ path: entry.path, mode: entry.mode, type: entry.type, sha });
        }
        const sha = await buildTree(repo.git, input.base_tree, changes);
        return { status: 201, body: await treeView(repo.git, sha, false, views.repoApi(repo)) };
      },
    },
    {
      method: 'GET',
      path: '/repos/:owner/:repo/git/commits/:sha',
      access: 'read',
      handler: async ({ repo, params }) => {
        const sha = params.sha ?? '';
        if ((await repo.git.objectType(sha)) !== 'commit') throw notFound('/git/commits#get-a-commit-object');
        return { status: 200, body: views.gitCommit(repo, await repo.git.readCommit(sha)) };
      },
    },
    {
      method: 'POST',
      path: '/repos/:owner/:repo/git/commits',
      access: 'write',
      handler: async ({ repo, body, login }) => {
        const input = CreateCommit.parse(body);
        if ((await repo.git.objectType(input.tree)) !== 'tree')
          throw unprocessable('Tree SHA does not exist');
        for (const parent of input.parents ?? []) {
          if ((await repo.git.objectType(parent)) !== 'commit')
            throw unprocessable('Parent SHA does not exist or is not a commit object');
        }
        const now = store.timestamp();
        const fallback = { name: login, email: `${login}@sandbox.invalid`, date: now };
        const author = input.author ? { ...input.author, date: input.author.date ?? now } : fallback;
        const committer = input.committer
          ? { ...input.committer, date: input.committer.date ?? now }
          : author;
        if (Number.isNaN(Date.parse(author.date)) || Number.isNaN(Date.parse(committer.date))) {
          throw unprocessable('Invalid request.\n\ndate is not a valid ISO 8601 date');
        }
        const sha = await repo.git.writeCommit({
          tree: input.tree,
          parents: input.parents ?? [],
          message: input.message,
          author,
          committer,
        });
        return { status: 201, body: views.gitCommit(repo, await repo.git.readCommit(sha)) };
      },
    },
  ];
}

/** A tree sha, or a commit's tree (GitHub accepts either, and branch names too). */
async function treeOf(git: GitRepository, shaOrRef: string): Promise<string | undefined> {
  const type = await git.objectType(shaOrRef);
  if (type === 'tree') return shaOrRef;
  const commit = type === 'commit' ? shaOrRef : await git.resolveCommit(shaOrRef);
  return commit ? (await git.readCommit(commit)).tree : undefined;
}

async function treeView(git: GitRepository, sha: string, recursive: boolean, repoApi: string) {
  const entries = await git.listTree(sha, { recursive });
  return {
    sha,
    url: `${repoApi}/git/trees/${sha}`,
    tree: entries.map((e) => ({
      path: e.path,
      mode: e.mode,
      type: e.type,
      sha: e.sha,
      ...(e.size !== undefined ? { size: e.size } : {}),
      ...(e.type === 'commit' ? {} : { url: `${repoApi}/git/${e.type}s/${e.sha}` }),
    })),
    truncated: false,
  };
}

/** Base64 in lines of 60 characters, as GitHub sends blob and file content. */
export function base64Lines(content: Buffer): string {
  const encoded = content.toString('base64');
  return `${encoded.replace(/.{60}/g, '$&\n')}${encoded.length % 60 === 0 ? '' : '\n'}`;
}

function touch(store: GitHubStore, repo: { pushedAt: string }): void {
  repo.pushedAt = store.timestamp();
}
