import { checkBlocks } from './block-limits.ts';
import { SlackApiError, type SlackMessageMetadata } from './fake-slack.ts';

/**
 * Reading a Web API method's arguments as Slack does: form fields arrive as strings and
 * structured fields (`blocks`, `metadata`) as JSON text, JSON bodies carry them as values; a
 * missing or malformed one is Slack's own error (`invalid_arguments`, `invalid_blocks`, ...).
 */

export type SlackArgs = Record<string, unknown>;

export function requireString(args: SlackArgs, name: string): string {
  const value = args[name];
  if (value === undefined || value === null || value === '') {
    throw new SlackApiError('invalid_arguments', `missing required field: ${name}`);
  }
  return String(value);
}

export function optionalString(args: SlackArgs, name: string): string | undefined {
  const value = args[name];
  return value === undefined || value === null ? undefined : String(value);
}

export function jsonArg(args: SlackArgs, name: string): unknown {
  const value = args[name];
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw new SlackApiError('invalid_arguments', `${name} is not valid JSON`);
  }
}

export function booleanArg(value: unknown): boolean {
  return value === true || value === 'true' || value === '1' || value === 1;
}

/** `metadata` of `chat.postMessage`: `{event_type, event_payload}`, as JSON text in a form body. */
export function metadataArg(args: SlackArgs): SlackMessageMetadata | undefined {
  let metadata = args.metadata;
  if (metadata === undefined || metadata === null || metadata === '') return undefined;
  if (typeof metadata === 'string') {
    try {
      metadata = JSON.parse(metadata);
    } catch {
      throw new SlackApiError('invalid_metadata_format', 'metadata is not valid JSON');
    }
  }
  const value = metadata as { event_type?: unknown; event_payload?: unknown };
  if (
    typeof value !== 'object' ||
    typeof value.event_type !== 'string' ||
    typeof value.event_payload !== 'object' ||
    value.event_payload === null
  ) {
    throw new SlackApiError('invalid_metadata_schema', 'metadata needs event_type and event_payload');
  }
  return { event_type: value.event_type, event_payload: value.event_payload as Record<string, unknown> };
}

export function blocksArg(args: SlackArgs): unknown[] | undefined {
  let blocks = args.blocks;
  if (blocks === undefined || blocks === null || blocks === '') return undefined;
  if (typeof blocks === 'string') {
    try {
      blocks = JSON.parse(blocks);
    } catch {
      throw new SlackApiError('invalid_blocks_format', 'blocks is not valid JSON');
    }
  }
  if (!Array.isArray(blocks)) throw new SlackApiError('invalid_blocks_format', 'blocks must be an array');
  if (blocks.length > 50) throw new SlackApiError('invalid_blocks', 'no more than 50 items allowed');
  if (blocks.some((block) => typeof block !== 'object' || block === null || typeof block.type !== 'string')) {
    throw new SlackApiError('invalid_blocks', 'every block needs a type');
  }
  return checkBlocks(blocks);
}

/** `oldest`/`latest` bounds on ts, exclusive unless `inclusive`, as Slack applies them. */
export function timeWindow(args: SlackArgs): (ts: string) => boolean {
  const oldest = optionalString(args, 'oldest');
  const latest = optionalString(args, 'latest');
  const inclusive = booleanArg(args.inclusive);
  return (ts) => {
    const value = Number(ts);
    if (oldest !== undefined && (inclusive ? value < Number(oldest) : value <= Number(oldest))) return false;
    if (latest !== undefined && (inclusive ? value > Number(latest) : value >= Number(latest))) return false;
    return true;
  };
}

export function paginate<T>(
  items: T[],
  args: SlackArgs,
  defaultLimit: number,
): { items: T[]; hasMore: boolean; nextCursor: string } {
  const limit = Math.max(1, Math.min(Number(args.limit ?? defaultLimit) || defaultLimit, 1000));
  const cursor = optionalString(args, 'cursor');
  const offset = cursor
    ? Number(
        Buffer.from(cursor, 'base64')
          .toString('utf8')
          .replace(/^offset:/, ''),
      ) || 0
    : 0;
  const page = items.slice(offset, offset + limit);
  const hasMore = offset + limit < items.length;
  return {
    items: page,
    hasMore,
    nextCursor: hasMore ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '',
  };
}

/** A field that must be a non-empty string as sent (no number or boolean taken for one). */
export function stringArg(args: SlackArgs, name: string): string {
  const value = args[name];
  if (typeof value !== 'string' || value === '')
    throw new SlackApiError('invalid_arguments', `missing required field: ${name}`);
  return value;
}
