import type { Octokit } from '@octokit/rest';
import { doorRedactor, type RedactionSettings, redactionSettings } from '../redaction/index.ts';

/** The fields people read of what the platform writes to GitHub. File contents (blobs) are code, written as they are. */
const TEXT_FIELDS = ['title', 'body', 'message'] as const;
const WRITES = new Set(['POST', 'PATCH', 'PUT']);
/** Pull requests, issues, their comments and reviews, and commit messages. */
const TEXT_ROUTES = /\/(?:pulls|issues|comments|reviews|git\/commits)\b/;

/**
 * Puts the redaction layer on every write the client makes: one Octokit request hook covers
 * every PR title and body, issue comment and commit message, whichever module writes them.
 * Placeholders are keyed by the conversation the write is made for, or by the repository and the
 * issue or pull request when none is known.
 */
export function withRedaction(octokit: Octokit, settings: RedactionSettings = redactionSettings()): Octokit {
  octokit.hook.before('request', async (options) => {
    if (!WRITES.has(options.method) || !TEXT_ROUTES.test(options.url)) return;
    const fields = options as unknown as Record<string, unknown>;
    const number = fields.issue_number ?? fields.pull_number ?? '';
    const redactor = doorRedactor(
      `github:${String(fields.owner)}/${String(fields.repo)}#${String(number)}`,
      settings,
    );
    for (const field of TEXT_FIELDS) {
      const value = fields[field];
      if (typeof value === 'string') fields[field] = (await redactor.redact(value)).text;
    }
  });
  return octokit;
}
