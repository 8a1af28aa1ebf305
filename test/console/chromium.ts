import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Finds the Chromium the console's browser test drives (playwright-core downloads no
 * browser), installing Debian's package when it can, so `npm ci && npm test` needs no third
 * step. In order:
 * 1. `CHROMIUM_PATH` when set: that file, or a clear failure (never a silent fallback);
 * 2. Debian's `/usr/bin/chromium-headless-shell`, then `/usr/bin/chromium`, then
 *    `chromium-headless-shell`, `chromium`, `chromium-browser`, `google-chrome` on PATH;
 * 3. as root with apt-get: `apt-get install -y chromium-headless-shell fonts-noto-color-emoji`,
 *    saying why;
 * 4. otherwise a failure that says how to install it.
 *
 * The headless shell comes first: the same engine without the browser's own interface (no
 * window toolkit, no tab strip or other WebUI pages of its own), so it starts and runs the same
 * pages on less CPU. Measured on the five browser test files here: about 44 CPU-s with the full
 * browser, 33 with the headless shell (docs/testing.md).
 */

export class ChromiumNotFoundError extends Error {
  override readonly name = 'ChromiumNotFoundError';
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
  }
}

/** What finding Chromium needs of the machine; tests pass fakes. */
export interface ChromiumHost {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether `path` is an executable file. */
  isExecutable(path: string): boolean;
  /** Whether this process runs as root (uid 0). */
  isRoot(): boolean;
  /** Runs a command to completion, inheriting stdio; its exit status (null: could not start). */
  run(command: string, args: readonly string[], env: Record<string, string>): number | null;
  /** Where the reason for an install is printed. */
  log(line: string): void;
}

const DEFAULT_PATHS = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'];
const NAMES_ON_PATH = ['chromium-headless-shell', 'chromium', 'chromium-browser', 'google-chrome'];
const PACKAGES = ['chromium-headless-shell', 'fonts-noto-color-emoji'];
const HOW_TO =
  'Install it with `sudo apt-get install -y chromium-headless-shell fonts-noto-color-emoji` (Debian/Ubuntu; the full `chromium` package works too), or set CHROMIUM_PATH to a Chromium or Chrome executable.';

/** The machine as it is. */
export const LOCAL_HOST: ChromiumHost = {
  env: process.env,
  isExecutable(path) {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
  isRoot: () => process.getuid?.() === 0,
  run(command, args, env) {
    const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
    return result.error === undefined ? result.status : null;
  },
  log: (line) => process.stderr.write(`${line}\n`),
};

/**
 * The path of a Chromium executable, installed first where this machine allows it.
 * @throws ChromiumNotFoundError saying what was looked for and how to install it
 */
export function ensureChromium(host: ChromiumHost = LOCAL_HOST): string {
  const configured = host.env.CHROMIUM_PATH;
  if (configured !== undefined && configured !== '') {
    if (host.isExecutable(configured)) return configured;
    throw new ChromiumNotFoundError(
      `CHROMIUM_PATH is ${configured}, which is not an executable file. ${HOW_TO}`,
    );
  }
  const found = findOnMachine(host);
  if (found !== undefined) return found;

  const apt = findOnPath(host, 'apt-get');
  if (!host.isRoot() || apt === undefined) {
    const why = host.isRoot() ? 'apt-get is not available' : 'installing needs root';
    throw new ChromiumNotFoundError(
      `Chromium is not at ${DEFAULT_PATHS.join(' or ')} nor on PATH (${NAMES_ON_PATH.join(', ')}), and the browser test cannot install it (${why}). ${HOW_TO}`,
    );
  }
  host.log(
    `Chromium is not at ${DEFAULT_PATHS.join(' or ')} nor on PATH: installing Debian's ${PACKAGES.join(' and ')} with apt-get (the console's browser test drives it; playwright-core downloads no browser).`,
  );
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  const updated = host.run(apt, ['update'], env);
  const installed = updated === 0 ? host.run(apt, ['install', '-y', ...PACKAGES], env) : updated;
  if (installed !== 0) {
    throw new ChromiumNotFoundError(
      `apt-get ${updated === 0 ? 'install' : 'update'} failed (exit ${installed ?? 'not started'}): see its output above. ${HOW_TO}`,
    );
  }
  const after = findOnMachine(host);
  if (after === undefined)
    throw new ChromiumNotFoundError(
      `apt-get installed ${PACKAGES[0]} but no executable was found. ${HOW_TO}`,
    );
  host.log(`Chromium installed: ${after}`);
  return after;
}

function findOnMachine(host: ChromiumHost): string | undefined {
  for (const path of DEFAULT_PATHS) if (host.isExecutable(path)) return path;
  for (const name of NAMES_ON_PATH) {
    const found = findOnPath(host, name);
    if (found !== undefined) return found;
  }
  return undefined;
}

function findOnPath(host: ChromiumHost, name: string): string | undefined {
  for (const folder of (host.env.PATH ?? '').split(delimiter)) {
    if (folder === '') continue;
    const candidate = join(folder, name);
    if (host.isExecutable(candidate)) return candidate;
  }
  return undefined;
}
