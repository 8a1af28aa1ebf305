import type { Aggregate, Command, Condition, GroupBy, Value } from './insights-parse.ts';

/**
 * Runs a parsed Logs Insights query over events, as the service does: every event's fields
 * (`@timestamp`, `@message`, `@logStream`, `@log`, `@ptr`, and the fields of a JSON message,
 * flattened with dots, as Insights discovers them), the commands in order, then the rows as
 * `GetQueryResults` answers them (`[{field, value}]`, values as text, timestamps as
 * `yyyy-MM-dd HH:mm:ss.SSS` in UTC). Without a `sort`, a query without `stats` returns the
 * newest events first.
 */

export interface InsightsEvent {
  timestamp: number;
  message: string;
  logStreamName: string;
  logGroupName: string;
  eventId: string;
}

type Row = Map<string, Value>;

export interface InsightsResult {
  rows: { field: string; value: string }[][];
  recordsMatched: number;
  recordsScanned: number;
  bytesScanned: number;
}

export function runInsightsQuery(
  commands: readonly Command[],
  events: Iterable<InsightsEvent>,
  options: { account: string; limit: number },
): InsightsResult {
  let rows: Row[] = [];
  let scanned = 0;
  let bytes = 0;
  for (const event of events) {
    scanned++;
    bytes += Buffer.byteLength(event.message);
    rows.push(rowOf(event, options.account));
  }
  let display: string[] | undefined;
  let aggregated = false;
  let sorted = false;
  let limit = options.limit;
  let matched = rows.length;
  for (const command of commands) {
    switch (command.kind) {
      case 'fields':
        display = [...(display ?? []), ...command.fields.filter((f) => !(display ?? []).includes(f))];
        break;
      case 'filter':
        rows = rows.filter((row) => holds(command.condition, row));
        if (!aggregated) matched = rows.length;
        break;
      case 'stats':
        rows = aggregate(rows, command.aggregates, command.by);
        display = [...command.by.map((g) => g.name), ...command.aggregates.map((a) => a.name)];
        aggregated = true;
        break;
      case 'sort':
        rows.sort((a, b) => {
          for (const key of command.keys) {
            const order = compareValues(a.get(key.field), b.get(key.field));
            if (order !== 0) return key.descending ? -order : order;
          }
          return 0;
        });
        sorted = true;
        break;
      case 'limit':
        limit = Math.min(limit, command.count);
        break;
    }
  }
  if (!sorted && !aggregated) rows.sort((a, b) => compareValues(b.get('@timestamp'), a.get('@timestamp')));
  const shown = display ?? ['@timestamp', '@message'];
  const fields = aggregated ? shown : [...shown, '@ptr'];
  return {
    rows: rows
      .slice(0, limit)
      .map((row) =>
        fields
          .filter((field) => row.has(field))
          .map((field) => ({ field, value: format(field, row.get(field) as Value) })),
      ),
    recordsMatched: matched,
    recordsScanned: scanned,
    bytesScanned: bytes,
  };
}

function rowOf(event: InsightsEvent, account: string): Row {
  const row: Row = new Map<string, Value>([
    ['@timestamp', event.timestamp],
    ['@message', event.message],
    ['@logStream', event.logStreamName],
    ['@log', `${account}:${event.logGroupName}`],
    ['@ptr', Buffer.from(`${event.logGroupName}\u0000${event.eventId}`).toString('base64')],
  ]);
  if (event.message.startsWith('{')) {
    try {
      flatten(JSON.parse(event.message) as unknown, '', row);
    } catch {
      // Not JSON after all: only the built-in fields.
    }
  }
  return row;
}

function flatten(value: unknown, prefix: string, row: Row): void {
  if (typeof value === 'string' || typeof value === 'number') {
    if (prefix !== '' && !row.has(prefix)) row.set(prefix, value);
    return;
  }
  if (typeof value === 'boolean') {
    if (prefix !== '') row.set(prefix, String(value));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, inner] of Object.entries(value))
    flatten(inner, prefix === '' ? key : `${prefix}.${key}`, row);
}

function holds(condition: Condition, row: Row): boolean {
  switch (condition.kind) {
    case 'and':
      return holds(condition.left, row) && holds(condition.right, row);
    case 'or':
      return holds(condition.left, row) || holds(condition.right, row);
    case 'not':
      return !holds(condition.inner, row);
    case 'ispresent':
      return row.has(condition.field);
    case 'like': {
      const value = row.get(condition.field);
      const matches = value !== undefined && condition.pattern.test(String(value));
      return condition.negated ? !matches : matches;
    }
    case 'in': {
      const value = row.get(condition.field);
      const found = value !== undefined && condition.values.some((v) => String(v) === String(value));
      return condition.negated ? !found : found;
    }
    case 'compare': {
      const value = row.get(condition.field);
      if (value === undefined) return false;
      const order = compareValues(value, condition.value);
      switch (condition.op) {
        case '=':
          return order === 0;
        case '!=':
          return order !== 0;
        case '<':
          return order < 0;
        case '<=':
          return order <= 0;
        case '>':
          return order > 0;
        default:
          return order >= 0;
      }
    }
  }
}

/** Numbers (and numeric text) by value, otherwise as text; absent values last. */
function compareValues(a: Value | undefined, b: Value | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  const x = Number(a);
  const y = Number(b);
  if (a !== '' && b !== '' && !Number.isNaN(x) && !Number.isNaN(y)) return x - y;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function aggregate(rows: readonly Row[], aggregates: readonly Aggregate[], by: readonly GroupBy[]): Row[] {
  const groups = new Map<string, { key: Row; rows: Row[] }>();
  for (const row of rows) {
    const key: Row = new Map();
    let skip = false;
    for (const g of by) {
      if (g.kind === 'bin') {
        const time = Number(row.get('@timestamp'));
        key.set(g.name, Math.floor(time / g.ms) * g.ms);
      } else {
        const value = row.get(g.field);
        // Insights leaves out events that lack a grouping field.
        if (value === undefined) skip = true;
        else key.set(g.name, value);
      }
    }
    if (skip) continue;
    const id = JSON.stringify([...key.values()]);
    let group = groups.get(id);
    if (group === undefined) {
      group = { key, rows: [] };
      groups.set(id, group);
    }
    group.rows.push(row);
  }
  return [...groups.values()].map(({ key, rows: members }) => {
    const out: Row = new Map(key);
    for (const a of aggregates) {
      const values =
        a.field === '*'
          ? members.map(() => 1)
          : members.flatMap((r) => (r.has(a.field) ? [Number(r.get(a.field))] : []));
      const numbers = values.filter((v) => !Number.isNaN(v));
      const result =
        a.fn === 'count'
          ? values.length
          : numbers.length === 0
            ? undefined
            : a.fn === 'sum'
              ? numbers.reduce((s, v) => s + v, 0)
              : a.fn === 'avg'
                ? numbers.reduce((s, v) => s + v, 0) / numbers.length
                : a.fn === 'min'
                  ? numbers.reduce((m, v) => Math.min(m, v))
                  : numbers.reduce((m, v) => Math.max(m, v));
      if (result !== undefined) out.set(a.name, result);
    }
    return out;
  });
}

function format(field: string, value: Value): string {
  if ((field === '@timestamp' || field.startsWith('bin(')) && typeof value === 'number')
    return new Date(value).toISOString().replace('T', ' ').replace('Z', '');
  return String(value);
}
