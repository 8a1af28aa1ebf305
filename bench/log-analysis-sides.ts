/**
 * Which side of each choice every sample's true templates take, in lines: each switch of the
 * miner (`heuristics.ts`) is flipped alone from the shipped defaults, and for every system the
 * bench prints how many more (+) or fewer (-) lines get their exact true template (PA) than with
 * the default. A choice with + on one system and - on another is one the samples' own labels
 * disagree on: no setting gets both right, and the lines on the losing side are the price of
 * either. Prints figures; asserts nothing. Run: `npm run bench:logs -- --sides`.
 */
import {
  CONVENTIONS,
  DEFAULT_HEURISTICS,
  GENERAL,
  type Heuristics,
  LEARNED,
} from '../lambdas/log-analysis/heuristics.ts';
import { TemplateMiner } from '../lambdas/log-analysis/template-miner.ts';
import { type LabelledLine, readSystem, SYSTEMS, type SystemName } from '../test/log-analysis/loghub.ts';

/** Lines whose mined template is exactly the true one. */
function exactLines(lines: readonly LabelledLine[], heuristics: Heuristics): number {
  const miner = new TemplateMiner({ heuristics });
  const groups = lines.map((l) => miner.add(l.content));
  let exact = 0;
  lines.forEach((l, i) => {
    if (miner.templateOf(groups[i] as number, l.content).template === l.template) exact++;
  });
  return exact;
}

/** The other value a switch is tried at: a boolean flipped; a number off (0) or, at 0, on (4). */
function flipped<K extends keyof Heuristics>(key: K): Heuristics[K] | undefined {
  const value = DEFAULT_HEURISTICS[key];
  if (typeof value === 'boolean') return !value as Heuristics[K];
  if (key === 'similarityThreshold') return undefined;
  return (value === 0 ? 4 : 0) as Heuristics[K];
}

const row = (cells: string[], widths: number[]) =>
  cells.map((cell, i) => cell.padStart(widths[i] ?? 0)).join(' ');

export function sides(): void {
  const data = new Map<SystemName, LabelledLine[]>(SYSTEMS.map((s) => [s.name, readSystem(s.name)]));
  const base = new Map<SystemName, number>();
  for (const [name, lines] of data) base.set(name, exactLines(lines, DEFAULT_HEURISTICS));
  const names = SYSTEMS.map((s) => s.name);
  const widths = [28, ...names.map((n) => Math.max(n.length, 6)), 10];
  console.log(
    '\nLines with their exact true template, each choice flipped alone from the shipped defaults (+ more, - fewer):\n',
  );
  console.log(row(['choice (flipped to)', ...names, 'disagree'], widths));
  for (const key of [...GENERAL, ...LEARNED, ...CONVENTIONS]) {
    const value = flipped(key);
    if (value === undefined) continue;
    const heuristics = { ...DEFAULT_HEURISTICS, [key]: value };
    const deltas = names.map((name) => exactLines(data.get(name) ?? [], heuristics) - (base.get(name) ?? 0));
    const gained = deltas.filter((d) => d > 0).reduce((a, b) => a + b, 0);
    const lost = -deltas.filter((d) => d < 0).reduce((a, b) => a + b, 0);
    console.log(
      row(
        [
          `${key}=${String(value)}`,
          ...deltas.map((d) => (d === 0 ? '.' : d > 0 ? `+${d}` : String(d))),
          gained > 0 && lost > 0 ? `${Math.min(gained, lost)}` : '',
        ],
        widths,
      ),
    );
  }
  console.log(
    '\n"disagree": lines on the smaller side of a choice the samples take both sides of (what either setting must lose).',
  );
}
