/**
 * `npm run -s logs:templates < file`: one log message per input line in, that line's template
 * out, one line each, in order; an empty (or blank) line gives an empty line.
 *
 * A line's template is its FINAL one: what the miner's grouping is after the whole input,
 * since a template can still generalize or fork after a line joined it. So the command makes
 * two streaming passes: the first mines each line and spools it to a temporary file (memory
 * holds the templates and one 32-bit group id per line, never the lines); the second reads the
 * spool back and writes each line's final template. Nothing is written before the input ends.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { TemplateMiner } from './template-miner.ts';

const BLANK = -1;
const FLUSH_AT = 1 << 16;

/** Group ids, one per line, in a growing typed array (4 bytes a line). */
class GroupIds {
  #ids = new Int32Array(1024);
  length = 0;
  push(id: number): void {
    if (this.length === this.#ids.length) {
      const grown = new Int32Array(this.#ids.length * 2);
      grown.set(this.#ids);
      this.#ids = grown;
    }
    this.#ids[this.length++] = id;
  }
  at(i: number): number {
    return this.#ids[i] as number;
  }
}

async function write(out: Writable, chunk: string): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

/** Runs the command over `input`, writing to `output`. Exported for tests. */
export async function writeTemplates(input: Readable, output: Writable): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'log-templates-'));
  try {
    const spoolPath = join(dir, 'lines');
    const spool = createWriteStream(spoolPath, { encoding: 'utf8' });
    const miner = new TemplateMiner();
    const ids = new GroupIds();
    let pending = '';
    for await (const line of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
      ids.push(line.trim() === '' ? BLANK : miner.add(line));
      pending += `${line}\n`;
      if (pending.length >= FLUSH_AT) {
        await write(spool, pending);
        pending = '';
      }
    }
    spool.end(pending);
    await once(spool, 'close');

    let i = 0;
    let out = '';
    for await (const line of createInterface({
      input: createReadStream(spoolPath, 'utf8'),
      crlfDelay: Number.POSITIVE_INFINITY,
    })) {
      const id = ids.at(i++);
      out += id === BLANK ? '\n' : `${miner.templateOf(id, line).template}\n`;
      if (out.length >= FLUSH_AT) {
        await write(output, out);
        out = '';
      }
    }
    if (out !== '') await write(output, out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeTemplates(process.stdin, process.stdout).catch((error: unknown) => {
    process.stderr.write(`logs:templates: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
