import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import type { GitHubEmulator } from './emulator.ts';
import { GitHubApiError } from './errors.ts';
import { commentView, issueView } from './issue-views.ts';
import { addComment, addLabels, openIssue } from './routes-issues.ts';
import { pullView } from './routes-pulls.ts';
import { submitReview } from './routes-reviews.ts';
import type { RepoRecord } from './store.ts';

/** Who acts through the sandbox endpoints when the request names nobody. */
export const DEFAULT_SANDBOX_USER = 'sandbox-user';

const RepoName = z.string().regex(/^[^/\s]+\/[^/\s]+$/, 'must be owner/name');
const OpenIssue = z.object({
  repo: RepoName,
  title: z.string().min(1),
  body: z.string().optional(),
  labels: z.array(z.string().min(1)).optional(),
  user: z.string().min(1).optional(),
});
const Comment = z.object({
  repo: RepoName,
  issue: z.number().int().positive(),
  body: z.string().min(1),
  user: z.string().min(1).optional(),
});
const Labels = z.object({
  repo: RepoName,
  issue: z.number().int().positive(),
  labels: z.array(z.string().min(1)).min(1),
  user: z.string().min(1).optional(),
});
const Review = z.object({
  repo: RepoName,
  pull: z.number().int().positive(),
  event: z.enum(['APPROVE', 'REQUEST_CHANGES', 'COMMENT']),
  body: z.string().optional(),
  user: z.string().min(1).optional(),
});
const Collaborator = z.object({
  repo: RepoName,
  user: z.string().min(1),
  permission: z.enum(['admin', 'write', 'read', 'none']),
});

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

/**
 * The sandbox's GitHub endpoints for people and tests (`/sandbox/github/...`): act as a user
 * (open an issue, comment, label, review a pull request: each sends its webhooks, and the answer waits for their
 * delivery), set who may write, see deliveries, and look at a repository's branches, commits,
 * pull requests and issues (where the emulator's html_url links lead).
 */
export function createGitHubSandboxEndpoints(github: GitHubEmulator) {
  const { store, events } = github;
  const withEvents = { store, events };
  const repoOf = (name: string): RepoRecord => {
    const [owner = '', repo = ''] = name.split('/');
    const record = store.repository(owner, repo);
    if (!record) throw new GitHubApiError(404, `no repository ${name}`);
    return record;
  };
  const issueOf = (repo: RepoRecord, number: number) => {
    const issue = repo.issues.get(number);
    if (!issue) throw new GitHubApiError(404, `no issue #${number} in ${repo.fullName}`);
    return issue;
  };

  async function route(req: IncomingMessage, path: string, body: string): Promise<[number, unknown]> {
    const method = req.method ?? 'GET';
    const json = () => {
      try {
        return body.trim() === '' ? {} : (JSON.parse(body) as unknown);
      } catch (error) {
        throw new GitHubApiError(400, 'body must be JSON', { cause: error });
      }
    };
    if (method === 'POST' && path === '/sandbox/github/issues') {
      const input = OpenIssue.parse(json());
      const repo = repoOf(input.repo);
      const issue = await openIssue(withEvents, repo, input, input.user ?? DEFAULT_SANDBOX_USER);
      await github.webhooks.settled();
      return [201, { number: issue.number, html_url: github.views.issueHtml(repo, issue) }];
    }
    if (method === 'POST' && path === '/sandbox/github/comments') {
      const input = Comment.parse(json());
      const repo = repoOf(input.repo);
      const comment = addComment(
        withEvents,
        repo,
        issueOf(repo, input.issue),
        input.body,
        input.user ?? DEFAULT_SANDBOX_USER,
      );
      await github.webhooks.settled();
      return [201, { id: comment.id }];
    }
    if (method === 'POST' && path === '/sandbox/github/labels') {
      const input = Labels.parse(json());
      const repo = repoOf(input.repo);
      const issue = issueOf(repo, input.issue);
      await addLabels(withEvents, repo, issue, input.labels, input.user ?? DEFAULT_SANDBOX_USER);
      await github.webhooks.settled();
      return [200, { labels: issue.labels }];
    }
    if (method === 'POST' && path === '/sandbox/github/reviews') {
      const input = Review.parse(json());
      const repo = repoOf(input.repo);
      const issue = issueOf(repo, input.pull);
      if (!issue.pull)
        throw new GitHubApiError(404, `#${input.pull} in ${repo.fullName} is not a pull request`);
      const review = await submitReview(withEvents, repo, issue, input, input.user ?? DEFAULT_SANDBOX_USER);
      await github.webhooks.settled();
      return [200, { id: review.id, state: review.state }];
    }
    if (method === 'POST' && path === '/sandbox/github/collaborators') {
      const input = Collaborator.parse(json());
      repoOf(input.repo).collaborators.set(input.user.toLowerCase(), input.permission);
      return [200, { user: input.user, permission: input.permission }];
    }
    if (method === 'GET' && path === '/sandbox/github/deliveries') {
      const full = new URL(req.url ?? '/', 'http://x').searchParams.get('payloads') === '1';
      const deliveries = github.webhooks
        .deliveries()
        .map(({ payload, ...d }) => (full ? { ...d, payload } : d));
      return [200, { deliveries }];
    }
    if (method === 'GET' && path === '/sandbox/github/repos') {
      return [
        200,
        {
          repositories: [...store.repos.values()].map((r) => ({
            full_name: r.fullName,
            default_branch: r.defaultBranch,
            private: r.private,
          })),
        },
      ];
    }
    const match = /^\/sandbox\/github\/repos\/([^/]+)\/([^/]+)(?:\/(issues|pull)\/(\d+))?(?:\/.*)?$/.exec(
      path,
    );
    if (method === 'GET' && match) {
      const repo = repoOf(`${match[1]}/${match[2]}`);
      if (match[4]) return [200, await issuePage(repo, Number(match[4]))];
      return [200, await repositoryPage(repo)];
    }
    return [404, { error: `no route ${method} ${path}` }];
  }

  async function issuePage(repo: RepoRecord, number: number) {
    const issue = issueOf(repo, number);
    const comments = [...repo.comments.values()].filter((c) => c.issueNumber === number);
    return {
      ...(issue.pull
        ? { pull_request: await pullView(github.views, repo, issue) }
        : { issue: issueView(github.views, repo, issue) }),
      comments: comments.map((c) => commentView(github.views, repo, c)),
    };
  }

  async function repositoryPage(repo: RepoRecord) {
    const defaultSha = await repo.git.resolveCommit(`refs/heads/${repo.defaultBranch}`);
    const commitSummary = async (sha: string) => {
      const c = await repo.git.readCommit(sha);
      return { sha, message: c.message.trim(), author: c.author.name, date: c.author.date };
    };
    const branches = [];
    for (const ref of (await repo.git.refs()).filter((r) => r.ref.startsWith('refs/heads/'))) {
      const name = ref.ref.slice('refs/heads/'.length);
      const own =
        name === repo.defaultBranch || !defaultSha ? [] : await repo.git.commitsBetween(defaultSha, ref.sha);
      branches.push({
        name,
        sha: ref.sha,
        ahead_by: own.length,
        commits: await Promise.all(own.reverse().map(commitSummary)),
      });
    }
    const history = defaultSha ? await repo.git.history(defaultSha, 20) : [];
    const items = [...repo.issues.values()].sort((a, b) => b.number - a.number);
    return {
      repository: { full_name: repo.fullName, default_branch: repo.defaultBranch, private: repo.private },
      branches,
      commits: await Promise.all(history.map(commitSummary)),
      pulls: items
        .filter((i) => i.pull)
        .map((i) => ({
          number: i.number,
          title: i.title,
          state: i.state,
          draft: i.pull?.draft,
          head: i.pull?.head,
          base: i.pull?.base,
          user: i.user,
          html_url: github.views.issueHtml(repo, i),
        })),
      issues: items
        .filter((i) => !i.pull)
        .map((i) => ({
          number: i.number,
          title: i.title,
          state: i.state,
          labels: i.labels,
          comments: i.comments,
          user: i.user,
          html_url: github.views.issueHtml(repo, i),
        })),
    };
  }

  return async (req: IncomingMessage, res: ServerResponse, body: string): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    try {
      const [status, value] = await route(req, path, body);
      sendJson(res, status, value);
    } catch (error) {
      if (error instanceof GitHubApiError) return sendJson(res, error.status, { error: error.message });
      if (error instanceof z.ZodError) {
        return sendJson(res, 400, {
          error: error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
        });
      }
      throw error;
    }
  };
}
