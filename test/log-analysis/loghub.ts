/**
 * The Loghub 2k samples (Zhu et al., "Loghub: A Large Collection of System Log Datasets for
 * AI-driven Log Analytics", ISSRE 2023; https://github.com/logpai/loghub), read in place from
 * `<repo>/../shared/data/loghub/` or `$LOGHUB_DIR`. The data is licensed for research use and is
 * never copied into this repository. Shared by the evaluation test and `bench/log-analysis.ts`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The eight systems of the benchmark, with Drain's published grouping accuracy (logpai/logparser). */
export const SYSTEMS = [
  { name: 'HDFS', drainGA: 0.9975 },
  { name: 'Apache', drainGA: 1.0 },
  { name: 'OpenSSH', drainGA: 0.7875 },
  { name: 'Zookeeper', drainGA: 0.9665 },
  { name: 'Spark', drainGA: 0.92 },
  { name: 'Hadoop', drainGA: 0.9475 },
  { name: 'BGL', drainGA: 0.9625 },
  { name: 'Linux', drainGA: 0.69 },
] as const;

export type SystemName = (typeof SYSTEMS)[number]['name'];

/** Where the data is: `$LOGHUB_DIR`, else `<repo>/../shared/data/loghub`. */
export function loghubDir(): string {
  const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  return resolve(process.env.LOGHUB_DIR ?? join(repo, '..', 'shared', 'data', 'loghub'));
}

/** True when every system's structured CSV is there. */
export function loghubPresent(dir = loghubDir()): boolean {
  return SYSTEMS.every((s) => existsSync(join(dir, `${s.name}_2k.log_structured.csv`)));
}

/** One labelled line: the message (`Content`), its true template id and template. */
export interface LabelledLine {
  content: string;
  eventId: string;
  template: string;
}

/** Reads `<System>_2k.log_structured.csv`. */
export function readSystem(name: SystemName, dir = loghubDir()): LabelledLine[] {
  const rows = parseCsv(readFileSync(join(dir, `${name}_2k.log_structured.csv`), 'utf8'));
  const header = rows.shift() ?? [];
  const col = (field: string) => {
    const i = header.indexOf(field);
    if (i < 0) throw new Error(`${name}: no ${field} column`);
    return i;
  };
  const [content, eventId, template] = [col('Content'), col('EventId'), col('EventTemplate')];
  return rows
    .filter((r) => r.length === header.length)
    .map((r) => ({
      content: r[content] ?? '',
      eventId: r[eventId] ?? '',
      template: r[template] ?? '',
    }));
}

/** RFC 4180: fields separated by commas, optionally quoted, quotes doubled inside quotes. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/**
 * Grouping accuracy (Zhu et al., ICSE-SEIP 2019): a line counts when the set of lines sharing
 * its predicted template is exactly the set sharing its true template.
 */
export function groupingAccuracy(truth: readonly string[], predicted: readonly (string | number)[]): number {
  const byTruth = new Map<string, number[]>();
  const byPredicted = new Map<string | number, number[]>();
  truth.forEach((t, i) => {
    byTruth.set(t, [...(byTruth.get(t) ?? []), i]);
  });
  predicted.forEach((p, i) => {
    const list = byPredicted.get(p);
    if (list) list.push(i);
    else byPredicted.set(p, [i]);
  });
  let correct = 0;
  for (const lines of byPredicted.values()) {
    const first = lines[0] as number;
    const group = byTruth.get(truth[first] as string) ?? [];
    if (group.length === lines.length && lines.every((i) => truth[i] === truth[first]))
      correct += lines.length;
  }
  return truth.length === 0 ? 1 : correct / truth.length;
}

/**
 * Parsing accuracy (Jiang et al., "A Large-scale Evaluation for Log Parsing Techniques: How Far
 * are We?", ISSTA 2024): the share of lines whose template string is exactly right (trimmed).
 */
export function parsingAccuracy(truth: readonly string[], predicted: readonly string[]): number {
  let correct = 0;
  truth.forEach((t, i) => {
    if (t.trim() === (predicted[i] ?? '').trim()) correct++;
  });
  return truth.length === 0 ? 1 : correct / truth.length;
}
