import type { Server } from 'node:http';

/**
 * How long an emulator's server keeps a client's idle keep-alive connection open. Node's default
 * (5 s) lets the server close a connection while the client's agent is already sending the next
 * request on it: on a busy machine, where a pause of 5 s between two calls is ordinary, that
 * request fails with ECONNRESET although nothing was wrong with it (an SDK client with no
 * retries answers it as a failure). Ten minutes is longer than any pause a test or the sandbox
 * leaves between calls; closing the server still ends idle connections at once.
 */
const IDLE_CONNECTION_MS = 10 * 60_000;

/** `server`, set to keep idle keep-alive connections for {@link IDLE_CONNECTION_MS}. */
export function keepIdleConnections<T extends Server>(server: T): T {
  server.keepAliveTimeout = IDLE_CONNECTION_MS;
  // A connection waiting for its next request's headers is also timed by headersTimeout: keep it
  // above the idle period, or it would close such a connection first.
  server.headersTimeout = IDLE_CONNECTION_MS + 1_000;
  return server;
}
