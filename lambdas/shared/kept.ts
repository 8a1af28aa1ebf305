import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The value named `name` that `owner` keeps, made by `create` the first time any copy of this
 * module asks for it. It lives on the owner under a key of the global symbol registry, not in a
 * module's variables, so a module evaluated again in the same process (a sandbox renewing its
 * handlers, a test worker resetting its modules between files) finds what the first evaluation
 * made: one counter, one cache, one fake workspace's state, whichever copy of the code reads it.
 */
export function keptOn<T>(owner: object, name: string, create: () => T): T {
  const key = Symbol.for(`slack-agent-workflows.${name}`);
  const holder = owner as Record<symbol, unknown>;
  if (!Object.hasOwn(holder, key))
    Object.defineProperty(holder, key, { value: create(), enumerable: false, configurable: true });
  return holder[key] as T;
}

/** {@link keptOn} for the process: one value of `name` per process, whatever evaluated the asking module. */
export function keptInProcess<T>(name: string, create: () => T): T {
  return keptOn(globalThis, name, create);
}

/**
 * The process's one `AsyncLocalStorage` of `name`. A storage that has run once stays in Node's
 * list of storages until it is disabled, and every promise the process creates afterwards walks
 * that list: a new storage per evaluation made each later promise slower, in every part of the
 * process (on Node 20, in a test worker's last minutes of sandbox files, `async_hooks` took
 * about 36 s of a whole run's 534 s of sampled CPU).
 */
export function processStorage<T>(name: string): AsyncLocalStorage<T> {
  return keptInProcess(`async-storage.${name}`, () => new AsyncLocalStorage<T>());
}
