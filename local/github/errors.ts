/**
 * Errors of the GitHub emulator. `GitHubApiError` is what an endpoint answers: the HTTP status
 * and GitHub's error body (`{message, documentation_url, status}`, plus `errors` for some 422s).
 * `GitCommandError` is a git CLI call that failed; the router answers it as a 500 unless an
 * endpoint translated it first (an unknown object is a 404 or 422 there, as on GitHub).
 */

const DOCS = 'https://docs.github.com/enterprise-server@3.19/rest';

export interface ValidationDetail {
  resource: string;
  field?: string;
  code: string;
  message?: string;
}

export class GitHubApiError extends Error {
  override readonly name = 'GitHubApiError';
  readonly status: number;
  readonly documentationUrl: string;
  readonly errors: ValidationDetail[] | undefined;

  constructor(
    status: number,
    message: string,
    options: { documentationUrl?: string; errors?: ValidationDetail[]; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.status = status;
    this.documentationUrl = options.documentationUrl ?? DOCS;
    this.errors = options.errors;
  }

  /** The body GitHub sends with this status. */
  body(): Record<string, unknown> {
    return {
      message: this.message,
      documentation_url: this.documentationUrl,
      status: String(this.status),
      ...(this.errors ? { errors: this.errors } : {}),
    };
  }
}

/** 404 `Not Found`, GitHub's answer for anything missing or hidden from the caller. */
export function notFound(documentationPath = ''): GitHubApiError {
  return new GitHubApiError(404, 'Not Found', { documentationUrl: `${DOCS}${documentationPath}` });
}

/** 422, the status GitHub gives a request it understood but refuses. */
export function unprocessable(message: string, errors?: ValidationDetail[]): GitHubApiError {
  return new GitHubApiError(422, message, errors ? { errors } : {});
}

export class GitCommandError extends Error {
  override readonly name = 'GitCommandError';
  readonly args: readonly string[];
  readonly exitCode: number | null;
  readonly stderr: string;

  constructor(
    args: readonly string[],
    exitCode: number | null,
    stderr: string,
    options?: { cause?: unknown },
  ) {
    super(`git ${args.join(' ')} exited with ${exitCode}: ${stderr.trim()}`, options);
    this.args = args;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}
