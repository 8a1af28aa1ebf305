import { describe, expect, it } from 'vitest';
import { type ChromiumHost, ChromiumNotFoundError, ensureChromium } from './chromium.ts';

/** A machine with these executables, run as `root` or not; `apt` decides each apt-get run's status. */
function fakeHost(options: {
  executables?: string[];
  env?: Record<string, string>;
  root?: boolean;
  apt?: (args: readonly string[]) => number;
}) {
  const executables = new Set(options.executables ?? []);
  const runs: string[] = [];
  const logs: string[] = [];
  const host: ChromiumHost = {
    env: { PATH: '/usr/local/bin:/usr/bin', ...options.env },
    isExecutable: (path) => executables.has(path),
    isRoot: () => options.root ?? false,
    run: (command, args, env) => {
      runs.push(`${env.DEBIAN_FRONTEND ?? ''} ${command} ${args.join(' ')}`.trim());
      const status = options.apt?.(args) ?? 0;
      if (status === 0 && args[0] === 'install') executables.add('/usr/bin/chromium-headless-shell');
      return status;
    },
    log: (line) => logs.push(line),
  };
  return { host, runs, logs };
}

describe('finding Chromium for the browser test', () => {
  it('uses CHROMIUM_PATH when it is an executable, and fails saying so when it is not', () => {
    const { host } = fakeHost({
      executables: ['/opt/chrome/chrome'],
      env: { CHROMIUM_PATH: '/opt/chrome/chrome' },
    });
    expect(ensureChromium(host)).toBe('/opt/chrome/chrome');
    const missing = fakeHost({
      env: { CHROMIUM_PATH: '/nonexistent' },
      root: true,
      executables: ['/usr/bin/apt-get'],
    });
    expect(() => ensureChromium(missing.host)).toThrow(
      /CHROMIUM_PATH is \/nonexistent, which is not an executable file\. Install it with `sudo apt-get install -y chromium-headless-shell/,
    );
    // An explicit path is never silently replaced by an install.
    expect(missing.runs).toEqual([]);
  });

  it("finds Debian's headless shell first, then its full browser, then chromium-like names on PATH", () => {
    const both = ['/usr/bin/chromium', '/usr/bin/chromium-headless-shell'];
    expect(ensureChromium(fakeHost({ executables: both }).host)).toBe('/usr/bin/chromium-headless-shell');
    expect(ensureChromium(fakeHost({ executables: ['/usr/bin/chromium'] }).host)).toBe('/usr/bin/chromium');
    expect(
      ensureChromium(
        fakeHost({
          executables: ['/usr/local/bin/chromium-browser', '/usr/local/bin/chromium-headless-shell'],
        }).host,
      ),
    ).toBe('/usr/local/bin/chromium-headless-shell');
    expect(ensureChromium(fakeHost({ executables: ['/usr/local/bin/chromium-browser'] }).host)).toBe(
      '/usr/local/bin/chromium-browser',
    );
  });

  it('installs the headless shell with apt-get as root, printing the reason, and returns the installed path', () => {
    const { host, runs, logs } = fakeHost({ root: true, executables: ['/usr/bin/apt-get'] });
    expect(ensureChromium(host)).toBe('/usr/bin/chromium-headless-shell');
    expect(runs).toEqual([
      'noninteractive /usr/bin/apt-get update',
      'noninteractive /usr/bin/apt-get install -y chromium-headless-shell fonts-noto-color-emoji',
    ]);
    expect(logs[0]).toMatch(
      /Chromium is not at \/usr\/bin\/chromium-headless-shell or \/usr\/bin\/chromium nor on PATH: installing Debian's chromium-headless-shell/,
    );
    expect(logs[1]).toBe('Chromium installed: /usr/bin/chromium-headless-shell');
  });

  it('fails with how to install it when not root, and does not try', () => {
    const { host, runs } = fakeHost({ root: false, executables: ['/usr/bin/apt-get'] });
    expect(() => ensureChromium(host)).toThrow(ChromiumNotFoundError);
    expect(() => ensureChromium(host)).toThrow(
      /installing needs root\)\. Install it with `sudo apt-get install/,
    );
    expect(runs).toEqual([]);
  });

  it('fails with how to install it without apt-get', () => {
    expect(() => ensureChromium(fakeHost({ root: true }).host)).toThrow(/apt-get is not available/);
  });

  it('fails naming the apt-get step that failed (no mirror reachable, say)', () => {
    const offline = fakeHost({ root: true, executables: ['/usr/bin/apt-get'], apt: () => 100 });
    expect(() => ensureChromium(offline.host)).toThrow(/apt-get update failed \(exit 100\)/);
    expect(offline.runs).toHaveLength(1);
    const noPackage = fakeHost({
      root: true,
      executables: ['/usr/bin/apt-get'],
      apt: (args) => (args[0] === 'install' ? 100 : 0),
    });
    expect(() => ensureChromium(noPackage.host)).toThrow(/apt-get install failed \(exit 100\)/);
  });
});
