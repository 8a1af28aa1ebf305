/**
 * Positions looked up in a source map (version 3) without decoding all of it: what the lazy
 * stack traces need (lazy-source-maps.ts). Node's `SourceMap` decodes every mapping of the file
 * into objects when it is built, which for a function's bundle (one `index.mjs` holding all the
 * code its cold start loads, infra/constructs/static-chunks.ts) is close to a million mappings
 * and more than a second of CPU, on the first error an instance formats. Here one pass over the
 * `mappings` text notes where each generated line starts and the running state there (the VLQ
 * fields are deltas across the whole file), and a lookup decodes the one line it is asked for.
 */

export interface SourceMapPayload {
  sources: string[];
  names?: string[];
  mappings: string;
  sourceRoot?: string;
}

export interface MappedPosition {
  originalSource?: string;
  /** Zero-based, as `findEntry` of Node's `SourceMap`. */
  originalLine?: number;
  originalColumn?: number;
  name?: string;
}

/** The decoder's state: where it reads, the running fields, and the last mapping with a source. */
const AT = 0;
const SOURCE = 1;
const LINE = 2;
const COLUMN = 3;
const NAME = 4;
const LAST = 5;
/** `LAST + k`: the last mapping's source, line, column and name (-1: none); its source is -1 before any. */
const FIELDS = 9;

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Int8Array(128).fill(-1);
for (let index = 0; index < BASE64.length; index += 1) DIGIT[BASE64.charCodeAt(index)] = index;

const SEMICOLON = 59;
const COMMA = 44;

export class SourceMapLookup {
  private readonly sources: string[];
  private readonly names: string[];
  private readonly mappings: string;
  /** `FIELDS` numbers per generated line: the state where the line starts, and at the end. */
  private starts: Float64Array | undefined;

  constructor(payload: SourceMapPayload) {
    if (!Array.isArray(payload.sources) || typeof payload.mappings !== 'string')
      throw new Error('not a source map: sources and mappings expected');
    const root = payload.sourceRoot ?? '';
    this.sources = payload.sources.map((source) => root + source);
    this.names = payload.names ?? [];
    this.mappings = payload.mappings;
  }

  /** The original position of a generated one (zero-based line and column), `{}` when none. */
  findEntry(line: number, column: number): MappedPosition {
    const starts = this.lineStarts();
    const lines = starts.length / FIELDS - 1;
    const state = starts.slice(Math.min(line, lines) * FIELDS, (Math.min(line, lines) + 1) * FIELDS);
    // Past the last line the answer is the last mapping, as with Node's `SourceMap`.
    if (line < lines) this.decode(state, column);
    return this.position(state);
  }

  private position(state: Float64Array): MappedPosition {
    const source = state[LAST] ?? -1;
    if (source < 0) return {};
    const name = state[LAST + 3] ?? -1;
    const position: MappedPosition = {
      originalSource: this.sources[source] ?? '',
      originalLine: state[LAST + 1] ?? 0,
      originalColumn: state[LAST + 2] ?? 0,
    };
    const named = name < 0 ? undefined : this.names[name];
    if (named !== undefined) position.name = named;
    return position;
  }

  /** One pass over the whole text: the state at the start of each generated line, and at its end. */
  private lineStarts(): Float64Array {
    if (this.starts !== undefined) return this.starts;
    const starts: number[] = [];
    const state = new Float64Array(FIELDS);
    state[LAST] = -1;
    for (;;) {
      starts.push(...state);
      const at = this.decode(state, Number.POSITIVE_INFINITY);
      if (at >= this.mappings.length) break;
      state[AT] = at + 1;
    }
    starts.push(...state);
    this.starts = Float64Array.from(starts);
    return this.starts;
  }

  /**
   * Decodes the line `state` stands at the start of, up to the generated `column`, leaving the
   * fields and the last mapping in `state`; returns where it stopped (the line's `;` or end).
   * One flat loop over the characters: the first pass runs over the whole map once, cold.
   */
  private decode(state: Float64Array, column: number): number {
    const text = this.mappings;
    const end = text.length;
    let source = state[SOURCE] ?? 0;
    let line = state[LINE] ?? 0;
    let original = state[COLUMN] ?? 0;
    let name = state[NAME] ?? 0;
    let lastSource = state[LAST] ?? -1;
    let lastLine = state[LAST + 1] ?? 0;
    let lastColumn = state[LAST + 2] ?? 0;
    let lastName = state[LAST + 3] ?? -1;
    let generated = 0;
    // The field of the segment being read (0: generated column ... 4: name), and the VLQ so far.
    let field = 0;
    let value = 0;
    let shift = 1;
    let at = state[AT] ?? 0;
    for (; at <= end; at += 1) {
      const code = at < end ? text.charCodeAt(at) : SEMICOLON;
      if (code === COMMA || code === SEMICOLON) {
        if (field === 1)
          lastSource = -1; // generated code with no source: maps to nothing
        else if (field >= 4) {
          lastSource = source;
          lastLine = line;
          lastColumn = original;
          lastName = field === 5 ? name : -1;
        }
        if (code === SEMICOLON) break;
        field = 0;
        continue;
      }
      const digit = code < 128 ? (DIGIT[code] ?? -1) : -1;
      if (digit < 0) throw new Error(`not a source map's mappings at ${at}`);
      value += (digit & 31) * shift;
      if (digit & 32) {
        shift *= 32;
        continue;
      }
      const delta = value % 2 === 1 ? -(value - 1) / 2 : value / 2;
      value = 0;
      shift = 1;
      if (field === 0) {
        generated += delta;
        // A segment past the column: the answer is the one before it.
        if (generated > column) break;
      } else if (field === 1) source += delta;
      else if (field === 2) line += delta;
      else if (field === 3) original += delta;
      else name += delta;
      field += 1;
    }
    state.set([Math.min(at, end), source, line, original, name, lastSource, lastLine, lastColumn, lastName]);
    return Math.min(at, end);
  }
}
