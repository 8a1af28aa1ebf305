import { InvalidLogInputError } from './errors.ts';
import { type Level, type LogInput, LogInputSchema, type LogRecord } from './records.ts';

const LEVEL_WORDS: Record<string, Level> = {
  trace: 'trace',
  debug: 'debug',
  fine: 'debug',
  info: 'info',
  information: 'info',
  notice: 'notice',
  warn: 'warn',
  warning: 'warn',
  error: 'error',
  err: 'error',
  severe: 'error',
  crit: 'fatal',
  critical: 'fatal',
  alert: 'fatal',
  emerg: 'fatal',
  fatal: 'fatal',
  panic: 'fatal',
};

const ISO_TIME = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?)\s*/;
const SYSLOG =
  /^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +(\d{1,2}) (\d{2}:\d{2}:\d{2}) (\S+) ([^\s:[]+)(?:\[\d+\])?: ?/;
const BRACKETED_TIME =
  /^\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2} \d{1,2} \d{2}:\d{2}:\d{2} \d{4})\]\s*/;
// A level is written in capitals (`ERROR`) or in brackets (`[error]`); a capitalized word alone
// (`Error connecting to db`) is the message's first word.
const LEVEL_AFTER_TIME = /^(?:-\s*)?(?:\[([A-Za-z]{3,11})\]|([A-Z]{3,11}))(?:\s+-)?(?:\s+|:\s*|$)/;
// AWS Lambda's runtimes: Node writes `<time>\t<request id>\t<LEVEL>\t<message>`, Python
// `[LEVEL]\t<time>\t<request id>\t<message>`.
const LEADING_LEVEL = /^\[([A-Za-z]{3,8})\]\s+(?=\d{4}-\d{2}-\d{2})/;
const REQUEST_ID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\s+/;
// logfmt and similar: `level=error msg=...`.
const LEVEL_FIELD = /\b(?:level|severity|lvl)=["']?([A-Za-z]+)/i;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Options of `parseLine`. */
export interface ParseOptions {
  /** The event's own time (CloudWatch's `timestamp`), used when the text has none. */
  time?: number;
  /** The service when the text names none (CloudWatch: the stream or group name). @default 'unknown' */
  service?: string;
  /** The year of syslog timestamps, which have none. @default the year of `time`, else 1970 */
  year?: number;
}

function levelOf(word: unknown): Level | undefined {
  return typeof word === 'string' ? LEVEL_WORDS[word.toLowerCase()] : undefined;
}

function timeOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value < 1e12 ? value * 1000 : value;
  if (typeof value !== 'string') return undefined;
  const t = Date.parse(value.replace(',', '.'));
  return Number.isNaN(t) ? undefined : t;
}

function pick(fields: Record<string, unknown>, names: readonly string[]): unknown {
  for (const name of names) {
    let value: unknown = fields;
    for (const part of name.split('.')) {
      value =
        value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
    }
    if (value !== undefined && value !== null && value !== '') return value;
  }
  return undefined;
}

function parseJson(raw: string, options: ParseOptions): LogRecord | undefined {
  let fields: unknown;
  try {
    fields = JSON.parse(raw);
  } catch {
    return undefined; // not JSON after all: read as text
  }
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return undefined;
  const obj = fields as Record<string, unknown>;
  const message = pick(obj, ['message', 'msg', 'log', 'text', 'error.message']);
  const service = pick(obj, ['service', 'service.name', 'serviceName', 'app', 'logger', 'name']);
  const time = timeOf(pick(obj, ['timestamp', '@timestamp', 'time', 'ts'])) ?? options.time;
  const record: LogRecord = {
    level: levelOf(pick(obj, ['level', 'severity', 'lvl', 'log.level', 'levelname'])) ?? 'unknown',
    service: typeof service === 'string' ? service : (options.service ?? 'unknown'),
    message: typeof message === 'string' ? message : raw,
    raw,
    fields: obj,
  };
  if (time !== undefined) record.time = time;
  return record;
}

/**
 * Reads the header of one line: a JSON object with a message field, an ISO 8601 timestamp
 * (with AWS Lambda's request id and level after it, or its level before it), a syslog header
 * (`Jun 14 15:16:01 host program[pid]: ...`) or an Apache-style bracketed time, then a level
 * word (`INFO`, `[error]`, `- WARN -`) or a `level=` field. What is left is the message.
 */
export function parseLine(raw: string, options: ParseOptions = {}): LogRecord {
  const line = raw.trim();
  if (line.startsWith('{')) {
    const json = parseJson(line, options);
    if (json) return json;
  }
  let rest = line;
  let time: number | undefined;
  let service = options.service ?? 'unknown';
  let level: Level = 'unknown';
  let requestId: string | undefined;
  const leading = LEADING_LEVEL.exec(rest);
  const leadingLevel = levelOf(leading?.[1]);
  if (leading && leadingLevel) {
    level = leadingLevel;
    rest = rest.slice(leading[0].length);
  }
  const iso = ISO_TIME.exec(rest);
  const syslog = iso ? null : SYSLOG.exec(rest);
  const bracketed = iso || syslog ? null : BRACKETED_TIME.exec(rest);
  if (iso?.[1]) {
    // Without a zone the time is taken as UTC, not as this machine's local time.
    const text = iso[1].replace(' ', 'T');
    time = timeOf(/(?:Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`);
    rest = rest.slice(iso[0].length);
    const request = REQUEST_ID.exec(rest);
    if (request) {
      requestId = request[1];
      rest = rest.slice(request[0].length);
    }
  } else if (syslog) {
    const year =
      options.year ?? (options.time === undefined ? 1970 : new Date(options.time).getUTCFullYear());
    const [, month, day, clock] = syslog;
    time = Date.parse(
      `${year}-${String(MONTHS.indexOf(month ?? '') + 1).padStart(2, '0')}-${(day ?? '').padStart(2, '0')}T${clock}Z`,
    );
    if (options.service === undefined && syslog[5]) service = syslog[5];
    rest = rest.slice(syslog[0].length);
  } else if (bracketed?.[1]) {
    time = Date.parse(`${bracketed[1]} UTC`);
    rest = rest.slice(bracketed[0].length);
  }
  const levelMatch = level === 'unknown' ? LEVEL_AFTER_TIME.exec(rest) : null;
  const named = levelOf(levelMatch?.[1] ?? levelMatch?.[2]);
  if (levelMatch && named) {
    level = named;
    rest = rest.slice(levelMatch[0].length);
  }
  if (level === 'unknown') level = levelOf(LEVEL_FIELD.exec(rest)?.[1]) ?? 'unknown';
  const record: LogRecord = { level, service, message: rest, raw };
  if (requestId !== undefined) record.fields = { request_id: requestId };
  const when = time !== undefined && !Number.isNaN(time) ? time : options.time;
  if (when !== undefined) record.time = when;
  return record;
}

/**
 * Validates and reads a batch of input: CloudWatch `FilterLogEvents` events (their
 * `timestamp`, and `service` or `logStreamName` or `logGroupName` as the service) and plain
 * text lines, mixed if need be. Throws `InvalidLogInputError` on anything else.
 */
export function parseInput(input: unknown, options: Omit<ParseOptions, 'time'> = {}): LogRecord[] {
  const parsed = LogInputSchema.safeParse(input);
  if (!parsed.success)
    throw new InvalidLogInputError('log input', parsed.error.message, { cause: parsed.error });
  return (parsed.data as LogInput).map((item) => {
    if (typeof item === 'string') return parseLine(item, options);
    const service = item.service ?? item.logStreamName ?? item.logGroupName ?? options.service;
    const lineOptions: ParseOptions = { ...options, time: item.timestamp };
    if (service !== undefined) lineOptions.service = service;
    return parseLine(item.message, lineOptions);
  });
}
