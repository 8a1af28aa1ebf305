import * as z from 'zod';
import type { TelemetryConfig, TelemetryService } from './config.ts';
import { QueryRefusedError } from './errors.ts';
import type { TimeRange } from './sources.ts';

/**
 * Keeping queries targeted (`isQueryTooBroad` and `suggestQueryRefinements`), in
 * code: a query must name one configured service, and its window may not be wider than
 * `maxWindowMinutes`. A missing service is refused (there is nothing sensible to narrow to);
 * a window too wide is narrowed to its latest `maxWindowMinutes`, and the result says so.
 */

/** The time window fields every query tool takes. */
export const WindowArgs = {
  since: z.iso
    .datetime({ offset: true })
    .optional()
    .describe('Start of the window (ISO 8601). Default: lastMinutes before until.'),
  until: z.iso.datetime({ offset: true }).optional().describe('End of the window (ISO 8601). Default: now.'),
  lastMinutes: z
    .number()
    .int()
    .min(1)
    .max(10_080)
    .optional()
    .describe('The window as the last N minutes before until (instead of since).'),
};

export interface ResolvedWindow extends TimeRange {
  /** Why the window differs from what was asked, when it does. */
  note?: string;
}

export interface BroadnessInput {
  service?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  lastMinutes?: number | undefined;
}

/** Why a query is too broad as asked: nothing when it is targeted. */
function isQueryTooBroad(
  query: BroadnessInput,
  config: TelemetryConfig,
  now: number,
): { refuse?: string; narrow?: string } {
  // Each reason on its own: a caller that checks the window alone must still see it.
  const reasons: { refuse?: string; narrow?: string } = {};
  if (query.service === undefined || query.service.trim() === '')
    reasons.refuse = `a query must name one service (${serviceNames(config)})`;
  const end = query.until === undefined ? now : Math.min(Date.parse(query.until), now);
  const start =
    query.since !== undefined
      ? Date.parse(query.since)
      : end - (query.lastMinutes ?? config.defaultWindowMinutes) * 60_000;
  const minutes = Math.ceil((end - start) / 60_000);
  if (minutes > config.maxWindowMinutes)
    reasons.narrow = `the window asked for is ${minutes} minutes, wider than the maximum of ${config.maxWindowMinutes}`;
  return reasons;
}

/** The window a query runs over: defaulted, clamped to now, narrowed when too wide; refused when empty. */
export function resolveWindow(args: BroadnessInput, config: TelemetryConfig, now: number): ResolvedWindow {
  if (args.since !== undefined && args.lastMinutes !== undefined)
    throw new QueryRefusedError('invalid_query', 'give since or lastMinutes, not both');
  const notes: string[] = [];
  let end = args.until === undefined ? now : Date.parse(args.until);
  if (end > now) {
    end = now;
    notes.push('until is in the future: the window ends now');
  }
  const start =
    args.since !== undefined
      ? Date.parse(args.since)
      : end - (args.lastMinutes ?? config.defaultWindowMinutes) * 60_000;
  if (start >= end)
    throw new QueryRefusedError(
      'invalid_query',
      `the window is empty: since ${new Date(start).toISOString()} is not before ${new Date(end).toISOString()}`,
    );
  const broad = isQueryTooBroad({ ...args, until: new Date(end).toISOString() }, config, now);
  if (broad.narrow === undefined)
    return { start, end, ...(notes.length > 0 ? { note: notes.join('; ') } : {}) };
  const narrowed = end - config.maxWindowMinutes * 60_000;
  notes.push(
    `narrowed: ${broad.narrow}, so it ran over the last ${config.maxWindowMinutes} minutes of it ` +
      `(${new Date(narrowed).toISOString()} .. ${new Date(end).toISOString()}); ask again with an earlier until for older data`,
  );
  return { start: narrowed, end, note: notes.join('; ') };
}

/** The configured service of a query; refuses a missing or unknown one with the reason. */
export function requireService(config: TelemetryConfig, name: string | undefined): TelemetryService {
  const broad = isQueryTooBroad({ service: name }, config, 0);
  if (broad.refuse !== undefined) throw new QueryRefusedError('too_broad', `too broad: ${broad.refuse}`);
  const service = config.services.find((s) => s.name === name);
  if (service === undefined)
    throw new QueryRefusedError(
      'unknown_service',
      `unknown service ${JSON.stringify(name)}; known: ${serviceNames(config)}`,
    );
  return service;
}

function serviceNames(config: TelemetryConfig): string {
  return config.services.length === 0 ? 'none is configured' : config.services.map((s) => s.name).join(', ');
}

export function isoRange(range: TimeRange): { start: string; end: string } {
  return { start: new Date(range.start).toISOString(), end: new Date(range.end).toISOString() };
}
