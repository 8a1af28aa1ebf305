/**
 * Slack's date formatting (`<!date^1700000000^{date_short_pretty} at {time}|fallback>`), as the
 * reader's Slack client shows it: the tokens replaced by the time in the reader's time zone,
 * the rest of the format kept. Tokens (Slack's "Formatting text for app surfaces"):
 * `{date_num}` 2014-02-18, `{date}` February 18th, 2014, `{date_short}` Feb 18, 2014,
 * `{date_long}` Tuesday, February 18th, 2014, the `_pretty` forms of the last three (Today,
 * Yesterday, Tomorrow when they apply), `{time}` 6:39 AM, `{time_secs}` 6:39:42 AM, `{ago}`.
 */

export interface DateOptions {
  /** The reader's time zone. @default the browser's */
  timeZone?: string;
  /** Epoch ms of "now", for the `_pretty` forms and `{ago}`. @default Date.now() */
  now?: number;
}

const ORDINAL: Record<string, string> = { one: 'st', two: 'nd', few: 'rd', other: 'th' };
const ordinals = new Intl.PluralRules('en-US', { type: 'ordinal' });
const ordinal = (day: number) => `${day}${ORDINAL[ordinals.select(day)] ?? 'th'}`;

interface Parts {
  year: number;
  month: number;
  day: number;
  monthLong: string;
  monthShort: string;
  weekday: string;
  hour: number;
  minute: number;
  second: number;
}

function partsOf(ms: number, timeZone: string | undefined): Parts {
  const format = new Intl.DateTimeFormat('en-US', {
    ...(timeZone ? { timeZone } : {}),
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    weekday: 'long',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    hourCycle: 'h23',
  });
  const get = (type: string) => format.formatToParts(ms).find((p) => p.type === type)?.value ?? '';
  const monthNumber = Number(
    new Intl.DateTimeFormat('en-US', { ...(timeZone ? { timeZone } : {}), month: 'numeric' }).format(ms),
  );
  const monthLong = get('month');
  return {
    year: Number(get('year')),
    month: monthNumber,
    day: Number(get('day')),
    monthLong,
    monthShort: monthLong.slice(0, 3),
    weekday: get('weekday'),
    hour: Number(get('hour')),
    minute: Number(get('minute')),
    second: Number(get('second')),
  };
}

const pad = (n: number) => String(n).padStart(2, '0');
const dayKey = (p: Parts) => `${p.year}-${pad(p.month)}-${pad(p.day)}`;

function clockOf(p: Parts, seconds: boolean): string {
  const hour12 = p.hour % 12 === 0 ? 12 : p.hour % 12;
  return `${hour12}:${pad(p.minute)}${seconds ? `:${pad(p.second)}` : ''} ${p.hour < 12 ? 'AM' : 'PM'}`;
}

function ago(ms: number, now: number): string {
  const seconds = Math.round((now - ms) / 1000);
  const future = seconds < 0;
  const abs = Math.abs(seconds);
  const [value, unit] =
    abs < 60
      ? [abs, 'second']
      : abs < 3600
        ? [Math.floor(abs / 60), 'minute']
        : abs < 86_400
          ? [Math.floor(abs / 3600), 'hour']
          : [Math.floor(abs / 86_400), 'day'];
  const words = `${value} ${unit}${value === 1 ? '' : 's'}`;
  return future ? `in ${words}` : `${words} ago`;
}

/** The date `epochSeconds` written as `format` says, for a reader in `options.timeZone`. */
export function formatSlackDate(epochSeconds: number, format: string, options: DateOptions = {}): string {
  const ms = epochSeconds * 1000;
  const now = options.now ?? Date.now();
  const p = partsOf(ms, options.timeZone);
  const relative = (): string | undefined => {
    const today = partsOf(now, options.timeZone);
    const key = dayKey(p);
    if (key === dayKey(today)) return 'Today';
    if (key === dayKey(partsOf(now - 86_400_000, options.timeZone))) return 'Yesterday';
    if (key === dayKey(partsOf(now + 86_400_000, options.timeZone))) return 'Tomorrow';
    return undefined;
  };
  const tokens: Record<string, () => string> = {
    date_num: () => dayKey(p),
    date: () => `${p.monthLong} ${ordinal(p.day)}, ${p.year}`,
    date_short: () => `${p.monthShort} ${p.day}, ${p.year}`,
    date_long: () => `${p.weekday}, ${p.monthLong} ${ordinal(p.day)}, ${p.year}`,
    date_pretty: () => relative() ?? tokens.date?.() ?? '',
    date_short_pretty: () => relative() ?? tokens.date_short?.() ?? '',
    date_long_pretty: () => relative() ?? tokens.date_long?.() ?? '',
    time: () => clockOf(p, false),
    time_secs: () => clockOf(p, true),
    ago: () => ago(ms, now),
  };
  return format.replace(/\{([a-z_]+)\}/g, (all, name: string) => tokens[name]?.() ?? all);
}
