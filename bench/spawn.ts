/**
 * What starting a process costs a large process, and what the process host saves
 * (local/process-host.ts). A process holding HEAP_MB of JavaScript objects (as a test worker or
 * `npm run dev` holds the SDKs, the sandbox and its state) starts `git --version` SPAWNS times,
 * and after each start rewrites every object once (what its garbage collector and its own work
 * do between two commands). Three ways, each measured as this process's own CPU time:
 * - `no spawn`: the rewrites alone (the floor);
 * - `direct`: `child_process.spawn` from this process, as the sandbox did before;
 * - `host`: through the process host, which forks instead.
 * The commands' CPU and the host's are printed apart ("children"): the host is a small process,
 * so its forks cost what a fork should. Prints
 * figures; asserts nothing. Run: `npm run bench:spawn` (`HEAP_MB=400 SPAWNS=20` to change).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { startProcess } from '../local/process-host.ts';

const HEAP_MB = Number(process.env.HEAP_MB ?? 200);
const SPAWNS = Number(process.env.SPAWNS ?? 20);

interface Cell {
  id: number;
  text: string;
  next: Cell | undefined;
}

// About 100 bytes an object with its string: HEAP_MB megabytes of small objects, as a heap holds.
const cells: Cell[] = [];
for (let i = 0; i < HEAP_MB * 10_000; i++) cells.push({ id: i, text: `cell ${i}`, next: cells[i - 1] });

function rewrite(): void {
  for (const cell of cells) cell.id += 1;
}

function direct(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['--version'], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

async function hosted(): Promise<void> {
  await startProcess('git', ['--version']).ended;
}

/** A process's /proc stat fields from the state on (field 3 is index 0); USER_HZ is 100 on Linux. */
function statFields(pid: string): number[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
}

/**
 * CPU milliseconds (user + system): this process's own, its reaped children's (the commands it
 * started directly), and the running process host's with the commands it reaped.
 */
function cpu(): { self: number; children: number } {
  const own = statFields('self');
  let children = ((own[13] ?? 0) + (own[14] ?? 0)) * 10;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const fields = statFields(pid);
      if (fields[1] === process.pid) children += fields.slice(11, 15).reduce((a, b) => a + b, 0) * 10;
    } catch {
      // Gone meanwhile.
    }
  }
  return { self: ((own[11] ?? 0) + (own[12] ?? 0)) * 10, children };
}

async function measure(name: string, start: (() => Promise<void>) | undefined): Promise<number> {
  if (start) await start(); // the host starts on its first use: not counted
  rewrite();
  const before = cpu();
  for (let i = 0; i < SPAWNS; i++) {
    if (start) await start();
    rewrite();
  }
  const after = cpu();
  const perSpawn = (after.self - before.self) / SPAWNS;
  console.log(
    `${name.padEnd(9)} ${perSpawn.toFixed(1).padStart(8)} ms of this process's CPU per command and rewrite` +
      `  (children ${((after.children - before.children) / SPAWNS).toFixed(1)} ms)`,
  );
  return perSpawn;
}

console.log(
  `heap: ${HEAP_MB} MB of objects (rss ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB), ${SPAWNS} commands each`,
);
const floor = await measure('no spawn', undefined);
const before = await measure('direct', direct);
const after = await measure('host', hosted);
console.log(
  `direct costs ${(before - floor).toFixed(1)} ms per command above the floor, the host ${(after - floor).toFixed(1)} ms`,
);
