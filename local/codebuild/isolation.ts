import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * How a build's commands are kept from the machine that runs the sandbox. A build runs code
 * an agent wrote (a `postinstall`, a test script), so it must not read the project's own
 * files (its configuration, its `.env`, other conversations' checkouts) nor leave anything
 * outside its directory.
 *
 * - `namespace-nobody` (running as root, as CI does): a private mount namespace
 *   (`unshare --mount`) where the project root is an empty read-only tmpfs with only its
 *   `node_modules` bound back read-only (the checks call `tsx`, `tsc` from there), `/tmp`,
 *   `/var/tmp` and `/dev/shm` are fresh tmpfs (thrown away with the build) with the build's
 *   own directory bound back, and the commands run as `nobody` with no supplementary groups
 *   and `no_new_privs` (`setpriv`). The build's directory is given to `nobody` first.
 * - `namespace-user` (not root, where the kernel allows unprivileged user namespaces): the same
 *   mounts, in a user namespace mapping the user to root (`unshare --user --map-root-user`);
 *   the commands keep the user's own rights outside the hidden paths.
 * - `none` (not root and no user namespaces): the commands run as the sandbox's user in the
 *   build's directory, and the build log says so on its first line. Nothing else is possible
 *   without privileges; the sandbox then must not run builds of code nobody reviewed.
 */
export type IsolationMode = 'namespace-nobody' | 'namespace-user' | 'none';

/** The uid and gid builds run as under `namespace-nobody`. */
export const NOBODY = { uid: 65_534, gid: 65_534 } as const;

/** Prepares the mounts, then runs `"$@"` (the build's command), in the new mount namespace. */
const MOUNT_SCRIPT = `set -e
root=$1; work=$2; shift 2
[ -d /mnt ] || mkdir /mnt
mount -t tmpfs -o mode=700 tmpfs /mnt
mkdir /mnt/work /mnt/modules
mount --bind "$work" /mnt/work
if [ -d "$root/node_modules" ]; then mount --bind "$root/node_modules" /mnt/modules; fi
# The temporary directories first: the project (or the build) may live under one of them, and
# is then put back below, inside the fresh tmpfs.
for dir in /tmp /var/tmp /dev/shm; do
  if [ -d "$dir" ]; then mount -t tmpfs -o mode=1777 tmpfs "$dir"; fi
done
mkdir -p "$root"
mount -t tmpfs -o mode=755,size=1m tmpfs "$root"
mkdir "$root/node_modules"
mount --bind /mnt/modules "$root/node_modules"
mount -o remount,bind,ro "$root/node_modules"
mkdir -p "$work"
mount --bind /mnt/work "$work"
# Refused inside a user namespace; there the tmpfs takes writes that vanish with the build.
mount -o remount,ro "$root" 2>/dev/null || true
umount -l /mnt
cd "$work"
exec "$@"
`;

let probed: Promise<IsolationMode> | undefined;

/** The isolation this machine allows, probed once per process. */
export function isolationMode(): Promise<IsolationMode> {
  probed ??= probe();
  return probed;
}

async function probe(): Promise<IsolationMode> {
  const root = process.getuid?.() === 0;
  const args = root
    ? ['--mount', '--propagation', 'private', 'true']
    : ['--user', '--map-root-user', '--mount', '--propagation', 'private', 'true'];
  try {
    await run('unshare', args, { timeout: 10_000 });
    return root ? 'namespace-nobody' : 'namespace-user';
  } catch {
    return 'none';
  }
}

/** The command line that runs `command` under `mode`, for a build in `workDir` of the project at `projectRoot`. */
export function isolatedCommand(
  mode: IsolationMode,
  options: { projectRoot: string; workDir: string; command: readonly string[] },
): { file: string; args: string[] } {
  const [file, ...args] = options.command;
  if (file === undefined) throw new Error('isolatedCommand needs a command');
  if (mode === 'none') return { file, args };
  const inner =
    mode === 'namespace-nobody'
      ? [
          'setpriv',
          `--reuid=${NOBODY.uid}`,
          `--regid=${NOBODY.gid}`,
          '--clear-groups',
          '--no-new-privs',
          '--',
          ...options.command,
        ]
      : [...options.command];
  const namespace =
    mode === 'namespace-nobody'
      ? ['--mount', '--propagation', 'private']
      : ['--user', '--map-root-user', '--mount', '--propagation', 'private'];
  return {
    file: 'unshare',
    args: [...namespace, 'sh', '-c', MOUNT_SCRIPT, 'sh', options.projectRoot, options.workDir, ...inner],
  };
}

/** Gives the build's directory (and everything in it) to the user the build runs as. */
export async function handOver(mode: IsolationMode, workDir: string): Promise<void> {
  if (mode !== 'namespace-nobody') return;
  // -h: a symbolic link in the checkout is changed itself, never followed out of the directory.
  await run('chown', ['-R', '-h', `${NOBODY.uid}:${NOBODY.gid}`, '--', workDir]);
}

/** The line the build log opens with, saying how the build is kept apart. */
export function isolationNote(mode: IsolationMode): string {
  switch (mode) {
    case 'namespace-nobody':
      return `Build isolation: runs as nobody (uid ${NOBODY.uid}) in a private mount namespace; the project's files and the host's /tmp are hidden`;
    case 'namespace-user':
      return "Build isolation: runs in a user and mount namespace; the project's files and the host's /tmp are hidden";
    case 'none':
      return "Build isolation: NONE (not root and no user namespaces): the build runs as the sandbox's user and can read what it can";
  }
}
