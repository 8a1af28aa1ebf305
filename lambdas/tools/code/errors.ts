import { DescribedError } from '../../shared/errors.ts';

/**
 * Errors of the code tools. Two kinds, told apart by class:
 *
 * - `CodeToolRefusal` and its subclasses: the model asked for something the tools refuse or
 *   cannot do (a path outside the repository, a diff that does not apply, a regular expression
 *   that runs too long). The handler answers them as `ok: false` with the message, so the model
 *   can correct its call; nothing was changed.
 * - Everything else (GitHub unreachable or failing, a broken tarball, a misconfiguration) is an
 *   infrastructure failure and is thrown, so the caller sees a function error.
 *
 * Each class sets `name`, which is what a Step Functions Retry/Catch and the logs match on.
 */

/** The model's request is refused or cannot be done; its message is written for the model. */
export class CodeToolRefusal extends Error {
  override readonly name: string = 'CodeToolRefusal';
}

/** A path that is not a plain path inside the repository (`../`, absolute, NUL, `.git/`, through a symlink out). */
export class PathRefusedError extends CodeToolRefusal {
  override readonly name = 'PathRefusedError';
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`path ${JSON.stringify(path)} refused: ${reason}`);
  }
}

/** The path names nothing in the repository at the ref read. */
export class FileNotFoundError extends CodeToolRefusal {
  override readonly name = 'FileNotFoundError';
  constructor(
    readonly path: string,
    detail = '',
  ) {
    super(`no file at ${JSON.stringify(path)}${detail}`);
  }
}

/** A glob pattern the matcher does not accept (unbalanced brackets or braces, too many alternatives). */
export class InvalidGlobError extends CodeToolRefusal {
  override readonly name = 'InvalidGlobError';
  constructor(
    readonly glob: string,
    reason: string,
  ) {
    super(`glob ${JSON.stringify(glob)} is not valid: ${reason}`);
  }
}

/** A regular expression that does not compile. */
export class InvalidPatternError extends CodeToolRefusal {
  override readonly name = 'InvalidPatternError';
  constructor(
    readonly pattern: string,
    options: { cause: unknown },
  ) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    // RE2 refuses these two by design: they are what makes a pattern need backtracking.
    const unsupported = /`\\[1-9]|\(\?<?[=!]/.test(reason)
      ? ' Backreferences (\\1) and lookaround ((?=, (?!, (?<=, (?<!) cannot be searched for: the engine is RE2, ' +
        'which runs every pattern in time linear in the input; match the text around them instead.'
      : '';
    super(
      `the regular expression ${JSON.stringify(pattern)} does not compile: ${reason}.${unsupported}`,
      options,
    );
  }
}

/** A unified diff that does not apply to the file as it is on the work branch. */
export class DiffDoesNotApplyError extends CodeToolRefusal {
  override readonly name = 'DiffDoesNotApplyError';
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`the diff does not apply to ${JSON.stringify(path)}, nothing was written: ${reason}`);
  }
}

/** A unified diff that cannot be parsed at all. */
export class MalformedDiffError extends CodeToolRefusal {
  override readonly name = 'MalformedDiffError';
  constructor(reason: string) {
    super(`the diff is not a unified diff, nothing was written: ${reason}`);
  }
}

/** A file the tools describe instead of returning (binary, or over the size cap), or refuse to write. */
export class FileTooLargeError extends CodeToolRefusal {
  override readonly name = 'FileTooLargeError';
}

/** A write aimed at a branch the conversation does not own (the default branch, another conversation's). */
export class BranchRefusedError extends CodeToolRefusal {
  override readonly name = 'BranchRefusedError';
  constructor(
    readonly branch: string,
    reason: string,
  ) {
    super(`writing to branch ${JSON.stringify(branch)} is refused: ${reason}`);
  }
}

/**
 * The work branch moved while a write was being made (another writer, a force push), so the
 * update without force was rejected: nothing was written; reading again and retrying is safe.
 */
export class BranchMovedError extends CodeToolRefusal {
  override readonly name = 'BranchMovedError';
  constructor(
    readonly branch: string,
    options: { cause: unknown },
  ) {
    super(
      `branch ${JSON.stringify(branch)} moved while the commit was made, nothing was written: read the file again and retry`,
      options,
    );
  }
}

/** The repository's tarball is larger than the cache may hold: an operator setting, not the model's mistake. */
export class TarballTooLargeError extends Error {
  override readonly name = 'TarballTooLargeError';
  constructor(
    readonly sha: string,
    readonly bytes: number,
    readonly limitBytes: number,
  ) {
    super(`the tarball of ${sha} has ${bytes} bytes, over the limit of ${limitBytes} (CODE_TARBALL_MAX_MB)`);
  }
}

/** The code tools' configuration (environment) is missing or invalid: a deployment defect. */
export class InvalidCodeToolsConfigurationError extends DescribedError {
  override readonly name = 'InvalidCodeToolsConfigurationError';
}

/** The configured base branch (or the default branch) does not exist in the repository: a configuration defect. */
export class BaseBranchMissingError extends Error {
  override readonly name = 'BaseBranchMissingError';
  constructor(
    readonly repository: string,
    readonly branch: string,
  ) {
    super(
      `the base branch ${branch} of ${repository} does not exist (CODE_BASE_BRANCH, or the default branch)`,
    );
  }
}

/** A ref that is not a commit sha reached the cache, which names directories by sha: a defect, not input. */
export class NotACommitShaError extends Error {
  override readonly name = 'NotACommitShaError';
  constructor(readonly ref: string) {
    super(`not a commit sha: ${JSON.stringify(ref)}`);
  }
}
