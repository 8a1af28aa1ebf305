/**
 * What a repository's reads can keep. Git objects are named by their content: what a command
 * answers about full object names (a commit's fields, a tree's entries, the diff or merge base
 * of two commits) cannot change, so it is read once per repository and kept, and each caller gets
 * its own copy. Refs do change; their list is kept until the repository writes a ref itself
 * (the emulator is the only writer of its repositories: a sandbox build only clones them).
 * Git answers every read in a process of its own, and starting one is the emulator's main cost.
 */

const SHA = /^[0-9a-f]{40}$/;

/** Whether every revision is a full object name (so what git answers about them never changes). */
export function allObjectNames(...revisions: readonly string[]): boolean {
  return revisions.every((revision) => SHA.test(revision));
}

function copyOf<T>(value: T): T {
  if (Buffer.isBuffer(value)) return Buffer.from(value) as T;
  return value === undefined ? value : structuredClone(value);
}

export class ImmutableReads {
  private readonly answers = new Map<string, Promise<unknown>>();

  /**
   * `read()`'s answer, kept under `key` when `keep` accepts it (an object that is absent may be
   * written later, so "not found" is not kept). A failed read is not kept either.
   */
  async get<T>(key: string, read: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
    let answer = this.answers.get(key) as Promise<T> | undefined;
    if (answer === undefined) {
      answer = read();
      this.answers.set(key, answer);
      answer.then(
        (value) => {
          if (!keep(value)) this.answers.delete(key);
        },
        () => this.answers.delete(key),
      );
    }
    return copyOf(await answer);
  }
}

/**
 * A value read from git that a write may change: kept until `changing()` says a write begins and
 * again once it has ended, so a read that overlapped a write is never served afterwards.
 */
export class MutableRead<T> {
  private generation = 0;
  private kept: { generation: number; answer: Promise<T> } | undefined;

  async get(read: () => Promise<T>): Promise<T> {
    let kept = this.kept;
    if (kept?.generation !== this.generation) {
      const fresh = { generation: this.generation, answer: read() };
      this.kept = kept = fresh;
      fresh.answer.catch(() => {
        if (this.kept === fresh) this.kept = undefined;
      });
    }
    return copyOf(await kept.answer);
  }

  /** Runs a write: what was kept is forgotten before it starts and after it ends. */
  async changing<R>(write: () => Promise<R>): Promise<R> {
    this.generation += 1;
    try {
      return await write();
    } finally {
      this.generation += 1;
    }
  }
}
