import { readFileSync } from 'node:fs';

/**
 * CPU time a process has used so far, in clock ticks (user + system, from `/proc/<pid>/stat`),
 * or `undefined` where there is no `/proc` or the process is gone. A process starting up on a
 * busy machine keeps adding to it; a stuck one does not, so a wait on a child process can fail
 * on no progress instead of on a fixed total.
 */
export function processCpuTicks(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of the whole line (utime, stime) are 12 and 13 after the name.
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}
