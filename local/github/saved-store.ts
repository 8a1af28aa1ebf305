import * as z from 'zod';
import type {
  CommentRecord,
  GitHubUser,
  IssueRecord,
  LabelRecord,
  Permission,
  RepoRecord,
  ReviewRecord,
} from './store.ts';

/**
 * What a sandbox that keeps its state (`--state`) saves of the GitHub emulator beside git, and
 * takes back when it starts (`GitHubStore.saved`, `GitHubStore.takeBack`): every repository's
 * record with its issues, pull requests, comments, reviews, labels and collaborators, the users,
 * the id sequence and each repository's number sequence. The bare repositories themselves stay
 * on disk where the emulator keeps them; a repository's record names its directory there.
 */

/** The shape of the saved GitHub records; records of another version are refused rather than misread. */
export const SAVED_GITHUB_VERSION = 1;

const Id = z.number().int().positive();
const permissionSchema = z.enum(['admin', 'write', 'read', 'none']);

const savedRepositorySchema = z
  .object({
    id: Id,
    owner: z.string().min(1),
    name: z.string().min(1),
    fullName: z.string().min(1),
    defaultBranch: z.string().min(1),
    // A directory's own name: the record cannot point outside the emulator's root.
    gitDir: z.string().regex(/^[\w-]+\.git$/),
    nextNumber: Id,
    issues: z.array(z.object({ number: Id, id: Id }).passthrough()),
    comments: z.array(z.object({ id: Id, issueNumber: Id }).passthrough()),
    reviews: z.array(z.object({ id: Id, pullNumber: Id }).passthrough()),
    labels: z.array(z.object({ id: Id, name: z.string().min(1) }).passthrough()),
    collaborators: z.array(z.tuple([z.string().min(1), permissionSchema])),
  })
  .passthrough();

export const savedGitHubSchema = z.object({
  version: z.literal(SAVED_GITHUB_VERSION, {
    error: (issue) =>
      `GitHub records of version ${String(issue.input)}: this sandbox reads version ${SAVED_GITHUB_VERSION}`,
  }),
  lastId: z.number().int().nonnegative(),
  users: z.array(
    z.object({ login: z.string().min(1), id: Id, type: z.enum(['User', 'Bot', 'Organization']) }),
  ),
  repos: z.array(savedRepositorySchema),
});

/** A repository's record as saved: its maps as lists, its git repository as the directory's name. */
export interface SavedRepository
  extends Omit<RepoRecord, 'git' | 'issues' | 'comments' | 'reviews' | 'labels' | 'collaborators'> {
  readonly gitDir: string;
  readonly issues: IssueRecord[];
  readonly comments: CommentRecord[];
  readonly reviews: ReviewRecord[];
  readonly labels: LabelRecord[];
  readonly collaborators: [string, Permission][];
}

/** The emulator's records as saved (checked with `savedGitHubSchema` when read). */
export interface SavedGitHub {
  readonly version: typeof SAVED_GITHUB_VERSION;
  readonly lastId: number;
  readonly users: GitHubUser[];
  readonly repos: SavedRepository[];
}
