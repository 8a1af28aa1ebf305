import type { ChildProcess } from 'node:child_process';
import { type HostMessage, type HostRequest, spawnReporting } from './process-host-protocol.ts';

/**
 * The process host (process-host.ts): a small process that starts the sandbox's commands for a
 * large one. It reads start requests from its IPC channel and reports each command's pid,
 * output and end back. When the channel closes (its parent ended), it kills what still runs
 * and exits.
 */

const running = new Map<number, { child: ChildProcess; detached: boolean }>();

function report(message: HostMessage): void {
  if (message.kind === 'ended' || message.kind === 'failed') running.delete(message.id);
  process.send?.(message);
}

process.on('message', (request: HostRequest) => {
  if (request.kind !== 'start') return;
  const child = spawnReporting(request.id, request, report);
  if (child) running.set(request.id, { child, detached: request.detached });
});

process.on('disconnect', () => {
  for (const { child, detached } of running.values()) {
    try {
      if (detached && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
  process.exit(0);
});
