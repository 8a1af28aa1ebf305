/**
 * The V8 flags of every process that hosts a sandbox: `npm run dev`, the benchmarks that start
 * one, the eval's case workers and the test workers (vitest.config.ts). A sandbox makes
 * short-lived objects by the million (each SDK call between a handler and an emulator is a
 * request, a response and their parsed bodies), and with V8's default young generation (semi-
 * spaces of 16 MB at most) collecting them is about a tenth of the sandbox's CPU. With 64 MB
 * the scavenges are fewer and no longer: the wake-load benchmark's p99 at 100 conversations
 * fell by a tenth to a sixth on one thread (docs/testing.md). Worker threads share the flags.
 * Scripts in package.json pass the same flags to tsx; `test/local/node-flags.test.ts` keeps
 * them equal.
 */
export const SANDBOX_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
