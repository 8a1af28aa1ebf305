/**
 * Log analysis benchmark: the template miner's accuracy on the Loghub 2k samples beside
 * Drain's published figures, its throughput on one thread, and its memory over 1,000,000
 * lines. Prints figures; it is not a test and asserts nothing. Run: `npm run bench:logs`.
 *
 * Data: Loghub (Zhu et al., ISSRE 2023; https://github.com/logpai/loghub), read in place from
 * `<repo>/../shared/data/loghub/` or `$LOGHUB_DIR`, never copied into this repository.
 * Drain: He et al., "Drain: An Online Log Parsing Approach with Fixed Depth Tree", ICWS 2017;
 * its figures as logpai/logparser publishes them (per-system tuned settings).
 */
import { availableParallelism, loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { TemplateMiner } from '../lambdas/log-analysis/template-miner.ts';
import {
  groupingAccuracy,
  loghubDir,
  loghubPresent,
  parsingAccuracy,
  readSystem,
  SYSTEMS,
} from '../test/log-analysis/loghub.ts';

const TOTAL_LINES = 1_000_000;
const CHECKPOINTS = [100_000, 250_000, 500_000, 1_000_000];
const BATCH = 10_000;
const THROUGHPUT_TARGET = 200_000;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const row = (cells: string[], widths: number[]) =>
  cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ');
const f4 = (n: number) => n.toFixed(4);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

// ---- accuracy --------------------------------------------------------------------------

function accuracy(): string[] {
  const widths = [10, 8, 9, 8, 11, 10];
  console.log(
    '\nAccuracy on Loghub 2k (one default configuration for every system; Drain tuned per system):\n',
  );
  console.log(row(['system', 'GA', 'Drain GA', 'PA', 'templates', 'true'], widths));
  let ga = 0;
  let drain = 0;
  let pa = 0;
  const contents: string[] = [];
  for (const system of SYSTEMS) {
    const lines = readSystem(system.name);
    contents.push(...lines.map((l) => l.content));
    const miner = new TemplateMiner();
    const groups = lines.map((l) => miner.add(l.content));
    const templates = lines.map((l, i) => miner.templateOf(groups[i] as number, l.content));
    const g = groupingAccuracy(
      lines.map((l) => l.eventId),
      templates.map((t) => t.id),
    );
    const p = parsingAccuracy(
      lines.map((l) => l.template),
      templates.map((t) => t.template),
    );
    ga += g;
    drain += system.drainGA;
    pa += p;
    const mark = g >= system.drainGA ? '' : '  BELOW DRAIN';
    console.log(
      row(
        [
          system.name,
          f4(g),
          f4(system.drainGA),
          f4(p),
          String(miner.templates().length),
          String(new Set(lines.map((l) => l.eventId)).size) + mark,
        ],
        widths,
      ),
    );
  }
  const n = SYSTEMS.length;
  console.log(row(['mean', f4(ga / n), f4(drain / n), f4(pa / n), '', ''], widths));
  console.log(
    `\nGA target: >= Drain on every system and mean > 0.909; PA: Drain averages about 0.32 (Loghub-2.0).`,
  );
  return contents;
}

// ---- replay ----------------------------------------------------------------------------

/** xorshift32: a fixed seed, so every run replays the same lines. */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x1_0000_0000;
  };
}

const DIGITS = /\d+/g;

/** The Loghub lines again and again, each digit run replaced by a fresh number of the same length. */
function* replay(contents: readonly string[], total: number): Generator<string[]> {
  const next = random(20_250_613);
  const fresh = (run: string) => {
    let out = '';
    for (let i = 0; i < run.length; i++) out += String(Math.floor(next() * 10));
    return out;
  };
  for (let done = 0; done < total; done += BATCH) {
    const batch: string[] = [];
    for (let i = done; i < Math.min(total, done + BATCH); i++) {
      batch.push((contents[i % contents.length] as string).replace(DIGITS, fresh));
    }
    yield batch;
  }
}

function throughputAndMemory(contents: readonly string[]): void {
  console.log(
    `\nThroughput and memory: ${TOTAL_LINES.toLocaleString('en')} lines replayed from the ${contents.length.toLocaleString('en')} Loghub lines with fresh numbers, one thread:\n`,
  );
  gc();
  const base = process.memoryUsage().heapUsed;
  const miner = new TemplateMiner();
  let mining = 0;
  let cpu = 0;
  let lines = 0;
  let peakHeap = 0;
  const widths = [12, 16, 16, 18, 10, 11];
  console.log(
    row(['lines', 'per CPU second', 'per wall second', 'miner heap (GC)', 'groups', 'templates'], widths),
  );
  for (const batch of replay(contents, TOTAL_LINES)) {
    const start = process.hrtime.bigint();
    const startCpu = process.cpuUsage();
    for (const line of batch) miner.add(line);
    const used = process.cpuUsage(startCpu);
    cpu += (used.user + used.system) / 1e6;
    mining += Number(process.hrtime.bigint() - start) / 1e9;
    lines += batch.length;
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed - base);
    if (CHECKPOINTS.includes(lines)) {
      gc();
      const heap = process.memoryUsage().heapUsed - base;
      console.log(
        row(
          [
            lines.toLocaleString('en'),
            Math.round(lines / cpu).toLocaleString('en'),
            Math.round(lines / mining).toLocaleString('en'),
            mb(heap),
            String(miner.groupCount),
            String(miner.templates().length),
          ],
          widths,
        ),
      );
    }
  }
  // CPU time, not wall time: on a shared machine the wall clock also counts other processes'
  // turns. CPU time includes V8's GC helper threads, so it errs on the slow side.
  const rate = lines / cpu;
  console.log(
    `\nmining: ${Math.round(rate).toLocaleString('en')} lines per CPU second (target >= ${THROUGHPUT_TARGET.toLocaleString('en')}: ${rate >= THROUGHPUT_TARGET ? 'met' : 'MISSED'}); ${Math.round(lines / mining).toLocaleString('en')} per wall second with load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`,
  );
  console.log(
    `peak heap above the start, sampled per ${BATCH.toLocaleString('en')} lines (includes each batch of replayed lines and garbage): ${mb(peakHeap)}`,
  );
  console.log(`rss at the end: ${mb(process.memoryUsage().rss)}`);
}

// ---- main ------------------------------------------------------------------------------

if (!loghubPresent()) {
  console.log(
    `No Loghub 2k data in ${loghubDir()}: set LOGHUB_DIR to the directory of the *_2k.log_structured.csv files.`,
  );
  process.exitCode = 1;
} else {
  const contents = accuracy();
  throughputAndMemory(contents);
}
