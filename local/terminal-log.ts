/**
 * The sandbox's terminal: the handlers log Powertools JSON, which in dev mode (POWERTOOLS_DEV)
 * is pretty-printed over many lines each, through the global console. By default the
 * sandbox reformats each such record as one line: time, level, function, message and the
 * fields that say what it was about (`SANDBOX_LOG_FORMAT=json` keeps Powertools' JSON).
 * Lines that are not Powertools records pass through untouched.
 */

export const LOG_FORMATS = ['line', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

class InvalidLogFormatError extends Error {
  override readonly name = 'InvalidLogFormatError';
  constructor(value: string) {
    super(`SANDBOX_LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')}, got ${JSON.stringify(value)}`);
  }
}

/** SANDBOX_LOG_FORMAT's value; unset or empty: `line`. */
export function parseLogFormat(raw: string | undefined): LogFormat {
  if (raw === undefined || raw.trim() === '') return 'line';
  const value = raw.trim().toLowerCase();
  if ((LOG_FORMATS as readonly string[]).includes(value)) return value as LogFormat;
  throw new InvalidLogFormatError(raw);
}

/** A log record as Powertools prints it: at least these, plus the handler's own keys. */
interface LogRecord {
  readonly level: string;
  readonly message: string;
  readonly timestamp: string;
  readonly service?: string;
  readonly [key: string]: unknown;
}

/** The record when `text` is one Powertools log record's JSON; anything else: undefined. */
function parseLogRecord(text: unknown): LogRecord | undefined {
  if (typeof text !== 'string' || !text.trimStart().startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  return typeof record.level === 'string' &&
    typeof record.message === 'string' &&
    typeof record.timestamp === 'string'
    ? (record as LogRecord)
    : undefined;
}

/** Powertools' own attributes: the line shows time, level and service; the rest is noise here. */
const HIDDEN = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'sampling_rate',
  'xray_trace_id',
  'tenant_id',
]);
/** Shown first when present: what a reader scans for. */
const FIRST = ['conversationId', 'workflow', 'task', 'profile', 'turn', 'action', 'state', 'error'];
const MAX_FIELDS = 8;
const MAX_VALUE = 120;

const COLORS: Record<string, string> = { ERROR: '31', CRITICAL: '31', WARN: '33', DEBUG: '2', TRACE: '2' };

/**
 * One line for one record: `19:41:56.123 WARN  agent-turn  agent turn failed: escalating
 * conversationId=c-1 error="ModelCallError: ..."`. At most MAX_FIELDS fields (then `+N more`),
 * each value cut at MAX_VALUE characters; an error shows as `Name: message`.
 */
function formatLogLine(record: LogRecord, options: { color?: boolean } = {}): string {
  const level = record.level.toUpperCase();
  const fields = Object.keys(record)
    .filter((key) => !HIDDEN.has(key) && record[key] !== undefined)
    .sort((a, b) => rank(a) - rank(b));
  const shown = fields.slice(0, MAX_FIELDS).map((key) => `${key}=${formatValue(record[key])}`);
  if (fields.length > MAX_FIELDS) shown.push(`+${fields.length - MAX_FIELDS} more`);
  const levelText = level.padEnd(5);
  const coloured =
    options.color && COLORS[level] ? `\u001b[${COLORS[level]}m${levelText}\u001b[0m` : levelText;
  return [
    timeOf(record.timestamp),
    coloured,
    (record.service ?? '-').padEnd(18),
    oneLine(record.message),
    ...shown,
  ]
    .join(' ')
    .trimEnd();
}

function rank(key: string): number {
  const index = FIRST.indexOf(key);
  return index === -1 ? FIRST.length : index;
}

/** `HH:MM:SS.mmm` of an ISO timestamp; the text itself when it is not one. */
function timeOf(timestamp: string): string {
  const match = /T(\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?)/.exec(timestamp);
  return match?.[1] ?? timestamp;
}

function formatValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return quoteIfNeeded(cut(oneLine(value)));
  if (isErrorLike(value)) return quoteIfNeeded(cut(oneLine(`${value.name}: ${value.message}`)));
  return cut(JSON.stringify(value) ?? String(value));
}

function isErrorLike(value: unknown): value is { name: string; message: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { name?: unknown }).name === 'string' &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

function quoteIfNeeded(text: string): string {
  return /[\s"=]/.test(text) || text === '' ? JSON.stringify(text) : text;
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ');
}

function cut(text: string): string {
  return text.length <= MAX_VALUE ? text : `${text.slice(0, MAX_VALUE - 1)}…`;
}

type ConsoleMethod = 'debug' | 'info' | 'warn' | 'error' | 'log';
const METHODS: readonly ConsoleMethod[] = ['debug', 'info', 'warn', 'error', 'log'];

/**
 * Makes `target`'s (the global console's) methods print Powertools records as one line each
 * in `line` format; `json` leaves them alone. Returns the function that restores them.
 */
export function installTerminalLog(options: {
  format: LogFormat;
  color?: boolean;
  target?: Pick<Console, ConsoleMethod>;
}): () => void {
  const target = options.target ?? console;
  if (options.format === 'json') return () => {};
  const originals = METHODS.map((method) => [method, target[method]] as const);
  for (const [method, original] of originals) {
    target[method] = (...args: unknown[]) => {
      const record = args.length === 1 ? parseLogRecord(args[0]) : undefined;
      if (record === undefined) return original.apply(target, args);
      return original.call(target, formatLogLine(record, { color: options.color ?? false }));
    };
  }
  return () => {
    for (const [method, original] of originals) target[method] = original;
  };
}

const LEVELS: Record<string, number> = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40, SILENT: 100 };

/**
 * What the sandbox itself reports (a Lambda that threw, a message in a dead-letter queue), as
 * a record like the handlers' at the sandbox's log level, so the terminal shows it in the
 * same format and SILENT (the tests) silences it.
 */
export function createSandboxLog(options: {
  level: string;
  now?: () => Date;
  target?: Pick<Console, 'warn'>;
}): { warn(message: string, fields?: Record<string, unknown>): void } {
  const threshold = LEVELS[options.level.toUpperCase()] ?? LEVELS.INFO;
  const now = options.now ?? (() => new Date());
  const target = options.target ?? console;
  return {
    warn(message, fields = {}) {
      if ((LEVELS.WARN ?? 30) < (threshold ?? 20)) return;
      const record = {
        level: 'WARN',
        message,
        timestamp: now().toISOString(),
        service: 'sandbox',
        ...fields,
      };
      target.warn(JSON.stringify(record, errorsAsObjects));
    },
  };
}

/** JSON.stringify drops an Error's own fields; keep its name and message (as Powertools does). */
function errorsAsObjects(_key: string, value: unknown): unknown {
  return value instanceof Error ? { name: value.name, message: value.message } : value;
}
