import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The process's one `AsyncLocalStorage` of `name`, kept under a key of the global symbol
 * registry, so a module evaluated again in the same process (a sandbox renewing its handlers, a
 * test worker resetting its modules between files) finds the storage the first evaluation made.
 * A storage that has run once stays in Node's list of storages until it is disabled, and every
 * promise the process creates afterwards walks that list: a new storage per evaluation made each
 * later promise slower, in every part of the process (on Node 20, in a test worker's last
 * minutes of sandbox files, `async_hooks` took a quarter of its CPU).
 */
export function processStorage<T>(name: string): AsyncLocalStorage<T> {
  const key = Symbol.for(`slack-agent-workflows.async-storage.${name}`);
  const holder = globalThis as Record<symbol, unknown>;
  if (!Object.hasOwn(holder, key))
    Object.defineProperty(holder, key, { value: new AsyncLocalStorage<T>(), enumerable: false });
  return holder[key] as AsyncLocalStorage<T>;
}
