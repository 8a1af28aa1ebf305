import { statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from '../process-host.ts';

/**
 * How a build's commands are kept from the machine that runs the sandbox. A build runs code
 * an agent wrote (a `postinstall`, a test script), so it must not read the project's own
 * files (its configuration, its `.env`, other conversations' checkouts) nor leave anything
 * outside its directory.
 *
 * Every command of a build runs in namespaces of its own (`unshare`):
 * - a PID namespace (`--pid --fork --mount-proc`): the command's shell is its init, `/proc`
 *   shows only its own processes (no other build's, no sandbox's), and whatever it leaves
 *   running dies with it, so nothing of one command outlives it; a command that kills its
 *   process group kills its own processes, never the shell whose exit status the emulator
 *   reads (signals from inside cannot kill a namespace's init);
 * - a network namespace (`--net`) with only its own loopback: no port of the sandbox (its
 *   Slack, GitHub, AWS emulators) and no other network is reachable, and `/proc/net/tcp` lists
 *   only the command's own sockets. Stricter than a CodeBuild build without VPC access, which
 *   reaches the internet: an install that needs a registry fails here, saying why;
 * - a mount namespace where the project root is an empty read-only tmpfs with only its
 *   `node_modules` bound back read-only (the checks call `tsx`, `tsc` from there), and `/tmp`,
 *   `/var/tmp` and `/dev/shm` are fresh tmpfs (thrown away with the command) with the build's
 *   own directory bound back.
 *
 * - `namespace-uid` (running as root, as CI does): the commands run as a uid of the build's own
 *   (no two running builds share one), with no supplementary groups and `no_new_privs`
 *   (`setpriv`); the build's directory is given to that uid first (mode 700), so no other
 *   build can read or write it even by path.
 * - `namespace-user` (not root, where the kernel allows unprivileged user namespaces): the same
 *   namespaces inside a user namespace mapping the user to root (`unshare --user
 *   --map-root-user`); the commands keep the user's own rights outside the hidden paths.
 * - `none` (not root and no user namespaces): the commands run as the sandbox's user in the
 *   build's directory, and the build log says so on its first line. Nothing else is possible
 *   without privileges; the sandbox then must not run builds of code nobody reviewed.
 */
export type IsolationMode = 'namespace-uid' | 'namespace-user' | 'none';

/** The uids builds run as under `namespace-uid`: one each, above any the system hands out. */
const BUILD_UIDS = { first: 1_500_000, count: 100_000 } as const;

/** The build's own uid (and gid of the same number), held until `release`. */
export interface BuildUser {
  readonly uid: number;
  release(): Promise<void>;
}

/**
 * Picks a uid no running build holds: a claim file per uid, created exclusively, in a
 * directory of the host's temporary directory (which no build sees: its `/tmp` is its own).
 * A claim left by a crashed sandbox only takes one uid of the range out of use.
 */
export async function claimBuildUser(random: () => number = Math.random): Promise<BuildUser> {
  const dir = join(tmpdir(), 'sandbox-codebuild-uids');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (let tries = 0; tries < 50; tries++) {
    const uid = BUILD_UIDS.first + Math.floor(random() * BUILD_UIDS.count);
    const claim = join(dir, String(uid));
    try {
      await writeFile(claim, String(process.pid), { flag: 'wx' });
      return { uid, release: () => rm(claim, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new Error(`no free build uid in ${BUILD_UIDS.first}-${BUILD_UIDS.first + BUILD_UIDS.count - 1}`);
}

/**
 * Prepares the mounts, then runs `"$@"` (the build's command), in the new mount namespace. The
 * mounts (`mountTable`) are made by one `mount --all` over a table written into the staging
 * tmpfs: each `mount` or `mkdir` is a process of its own, and a dozen of them cost a command
 * more CPU than the rest of its isolation together. Every tmpfs in the table has a source name
 * of its own, so `mount --all` never takes one for "already mounted" (the host's `/dev/shm` is a
 * tmpfs named `tmpfs`) and skips it; any entry that fails fails the command (`set -e`).
 */
const MOUNT_SCRIPT = `set -e
root=$1; work=$2; table=$3; shift 3
[ -d /mnt ] || mkdir /mnt
mount -t tmpfs -o mode=700 tmpfs /mnt
printf '%s\\n' "$table" > /mnt/fstab
mount --all --fstab /mnt/fstab
# Refused inside a user namespace; there the tmpfs takes writes that vanish with the build.
mount -o remount,ro "$root" 2>/dev/null || true
umount -l /mnt
# The network namespace's own loopback, so a test may listen on localhost; nothing else is there.
if command -v ip >/dev/null 2>&1; then ip link set lo up 2>/dev/null || true; fi
cd "$work"
exec "$@"
`;

/** A path as an fstab field: space, tab, newline and backslash octal-escaped, as libmount reads them. */
function fstabField(path: string): string {
  return path.replace(/[ \t\n\\]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

/**
 * The mounts of a build's command, in order, as the lines of an fstab (MOUNT_SCRIPT mounts them
 * after putting a staging tmpfs on `/mnt`): the build's directory and the project's
 * `node_modules` bound into the staging area first; then fresh tmpfs on the temporary
 * directories (the project, or the build, may live under one of them, and is put back below,
 * inside the fresh tmpfs); an empty tmpfs on the project root with only its `node_modules` bound
 * back read-only; the build's directory bound back where it was. `X-mount.mkdir` makes each
 * mount point (with its parents) first.
 */
function mountTable(projectRoot: string, workDir: string): string {
  const root = fstabField(projectRoot);
  const work = fstabField(workDir);
  const modules = join(projectRoot, 'node_modules');
  return [
    `${work} /mnt/work none bind,X-mount.mkdir 0 0`,
    isDirectory(modules)
      ? `${fstabField(modules)} /mnt/modules none bind,X-mount.mkdir 0 0`
      : 'build-modules /mnt/modules tmpfs mode=755,X-mount.mkdir 0 0',
    ...['/tmp', '/var/tmp', '/dev/shm']
      .filter((dir) => isDirectory(dir))
      .map((dir) => `build-tmp ${dir} tmpfs mode=1777 0 0`),
    `build-root ${root} tmpfs mode=755,size=1m,X-mount.mkdir 0 0`,
    `/mnt/modules ${root}/node_modules none bind,ro,X-mount.mkdir 0 0`,
    `/mnt/work ${work} none bind,X-mount.mkdir 0 0`,
  ].join('\n');
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/** The namespaces each command gets (the class comment above says why each). */
const NAMESPACES = [
  '--pid',
  '--fork',
  '--kill-child',
  '--mount-proc',
  '--net',
  '--mount',
  '--propagation',
  'private',
];

let probed: Promise<IsolationMode> | undefined;

/** The isolation this machine allows, probed once per process. */
export function isolationMode(): Promise<IsolationMode> {
  probed ??= probe();
  return probed;
}

async function probe(): Promise<IsolationMode> {
  const root = process.getuid?.() === 0;
  const args = root ? [...NAMESPACES, 'true'] : ['--user', '--map-root-user', ...NAMESPACES, 'true'];
  try {
    await runProcess('unshare', args);
    return root ? 'namespace-uid' : 'namespace-user';
  } catch {
    return 'none';
  }
}

/** The command line that runs `command` under `mode`, for a build in `workDir` of the project at `projectRoot`. */
export function isolatedCommand(
  mode: IsolationMode,
  options: { projectRoot: string; workDir: string; command: readonly string[]; uid?: number },
): { file: string; args: string[] } {
  const [file, ...args] = options.command;
  if (file === undefined) throw new Error('isolatedCommand needs a command');
  if (mode === 'none') return { file, args };
  if (mode === 'namespace-uid' && options.uid === undefined)
    throw new Error('namespace-uid needs the build uid');
  const inner =
    mode === 'namespace-uid'
      ? [
          'setpriv',
          `--reuid=${options.uid}`,
          `--regid=${options.uid}`,
          '--clear-groups',
          '--no-new-privs',
          '--',
          ...options.command,
        ]
      : [...options.command];
  const namespace = mode === 'namespace-uid' ? NAMESPACES : ['--user', '--map-root-user', ...NAMESPACES];
  return {
    file: 'unshare',
    args: [
      ...namespace,
      'sh',
      '-c',
      MOUNT_SCRIPT,
      'sh',
      options.projectRoot,
      options.workDir,
      mountTable(options.projectRoot, options.workDir),
      ...inner,
    ],
  };
}

/** Gives the build's directory (and everything in it) to the build's own uid. */
export async function handOver(mode: IsolationMode, workDir: string, uid: number | undefined): Promise<void> {
  if (mode !== 'namespace-uid' || uid === undefined) return;
  // -h: a symbolic link in the checkout is changed itself, never followed out of the directory.
  await runProcess('chown', ['-R', '-h', `${uid}:${uid}`, '--', workDir]);
}

/** The line the build log opens with, saying how the build is kept apart. */
export function isolationNote(mode: IsolationMode, uid?: number): string {
  switch (mode) {
    case 'namespace-uid':
      return `Build isolation: each command runs as the build's own uid ${uid ?? '?'} in its own PID, network and mount namespaces; no other process, no network, and neither the project's files nor the host's /tmp are visible`;
    case 'namespace-user':
      return "Build isolation: each command runs in its own user, PID, network and mount namespaces; no other process, no network, and neither the project's files nor the host's /tmp are visible";
    case 'none':
      return "Build isolation: NONE (not root and no user namespaces): the build runs as the sandbox's user and can read what it can";
  }
}
