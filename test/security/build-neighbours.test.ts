import { readFileSync } from 'node:fs';
import { StartBuildCommand, StopBuildCommand } from '@aws-sdk/client-codebuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolationMode } from '../../local/codebuild/isolation.ts';
import { createProject, finished, makeRepository, startCodeBuild } from '../local/codebuild.harness.ts';
import { eventually } from '../support/eventually.ts';

/**
 * The attacks of one build on another and on the sandbox, replayed in the sandbox's CodeBuild:
 * a build that looks for other builds' processes in `/proc` (and their checkouts through
 * `/proc/<pid>/cwd`) to rewrite their `package.json`, writes to another build's checkout by
 * its path, and finds the sandbox's own ports in `/proc/net/tcp` to call them. Each command
 * runs in its own PID and network namespaces, as a uid of its build's own, so it sees none of
 * it and reaches nothing.
 */

let cb: Awaited<ReturnType<typeof startCodeBuild>>;
let repo: ReturnType<typeof makeRepository>;
const port = () => Number(new URL(cb.endpoint).port);

beforeAll(async () => {
  cb = await startCodeBuild({ minuteMs: 2_000 });
  repo = makeRepository({
    'package.json': '{"scripts":{"test":"echo victim tests"}}\n',
    'victim.sh': 'echo "running-as-uid=$(id -u)"; echo "victim-dir=$CODEBUILD_SRC_DIR"; exec sleep 37\n',
    'attack.sh': [
      'echo "running-as-uid=$(id -u)"',
      // Other builds' processes, and their checkouts through /proc/<pid>/cwd.
      'for d in /proc/[0-9]*; do tr "\\0" " " < "$d/cmdline" 2>/dev/null | grep -q "sleep 37" && echo "SAW-VICTIM $d"; done',
      'for d in /proc/[0-9]*; do [ -r "$d/cwd/victim.sh" ] && [ "$(readlink "$d/cwd")" != "$PWD" ] && echo "READ-NEIGHBOUR $d"; done',
      // The other build's checkout by its path.
      'cat "$VICTIM_DIR/package.json" 2>/dev/null && echo READ-VICTIM-FILE',
      'echo \'{"scripts":{"test":"node -e 0"}}\' > "$VICTIM_DIR/package.json" 2>/dev/null && echo WROTE-VICTIM-FILE',
      // The sandbox's ports.
      'grep -qi ":$(printf %04X "$SANDBOX_PORT") " /proc/net/tcp /proc/net/tcp6 2>/dev/null && echo SAW-SANDBOX-PORT',
      `node -e "require('net').connect(Number(process.env.SANDBOX_PORT), '127.0.0.1').on('connect', () => { console.log('REACHED-SANDBOX'); process.exit(0); }).on('error', (e) => console.log('refused: ' + e.code))"`,
      'echo ATTACK-DONE',
    ].join('\n'),
  });
  await createProject(
    cb.client,
    'neighbours',
    repo.path,
    'version: 0.2\nphases:\n  build:\n    commands:\n      - bash "$SCRIPT"\n',
  );
});

afterAll(async () => {
  await cb?.close();
  repo?.remove();
});

const logOf = (id: string) =>
  cb.service
    .readLog(id)
    .events.map((e) => e.message)
    .join('\n');

describe('a build attacking other builds and the sandbox', () => {
  it('sees no other build, cannot touch its checkout, and reaches none of the sandbox’s ports', async () => {
    const mode = await isolationMode();
    // CI runs as root: the full isolation is what is asserted there.
    if (process.getuid?.() === 0) expect(mode).toBe('namespace-uid');
    if (mode === 'none') return;
    // The probe is sound: seen from the host, the sandbox's port is listed.
    const hex = port().toString(16).toUpperCase().padStart(4, '0');
    expect(readFileSync('/proc/net/tcp', 'utf8')).toContain(`:${hex} `);

    const victim = await cb.client.send(
      new StartBuildCommand({
        projectName: 'neighbours',
        environmentVariablesOverride: [{ name: 'SCRIPT', value: 'victim.sh', type: 'PLAINTEXT' }],
      }),
    );
    const victimId = victim.build?.id ?? '';
    const victimDir = await eventually(
      async () => /victim-dir=(\S+)/.exec(logOf(victimId))?.[1],
      (dir) => dir !== undefined,
      'the victim build running',
      { stallMs: 30_000, intervalMs: 100 },
    );
    const attacker = await cb.client.send(
      new StartBuildCommand({
        projectName: 'neighbours',
        environmentVariablesOverride: [
          { name: 'SCRIPT', value: 'attack.sh', type: 'PLAINTEXT' },
          { name: 'VICTIM_DIR', value: victimDir ?? '', type: 'PLAINTEXT' },
          { name: 'SANDBOX_PORT', value: String(port()), type: 'PLAINTEXT' },
        ],
      }),
    );
    const done = await finished(cb.client, attacker.build?.id ?? '');
    await cb.client.send(new StopBuildCommand({ id: victimId }));
    const log = logOf(done.id ?? '');

    expect(log).toContain('ATTACK-DONE');
    for (const sign of [
      'SAW-VICTIM',
      'READ-NEIGHBOUR',
      'READ-VICTIM-FILE',
      'WROTE-VICTIM-FILE',
      'SAW-SANDBOX-PORT',
      'REACHED-SANDBOX',
    ]) {
      expect(log).not.toContain(sign);
    }
    expect(log).toMatch(/refused: E[A-Z]+/);
    // Two builds, two uids.
    const uidOf = (text: string) => /running-as-uid=(\d+)/.exec(text)?.[1];
    expect(uidOf(log)).toBeDefined();
    if (mode === 'namespace-uid') expect(uidOf(log)).not.toBe(uidOf(logOf(victimId)));
  });
});
