/**
 * The values of `work`, once every one of them has ended; if any failed, the first failure (in
 * the order given), thrown only then. Unlike `Promise.all`, which rejects at the first failure,
 * nothing is still running when the caller learns of it: a handler that returns an error leaves
 * no write half done for its environment to freeze, or for a retry to run beside.
 */
export async function allEnded<const T extends readonly unknown[]>(
  work: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const ended = await Promise.allSettled(work);
  const failed = ended.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return ended.map((result) => (result as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}
