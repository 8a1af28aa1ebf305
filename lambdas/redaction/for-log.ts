import type { RedactionSettings } from './config.ts';
import { tagScope } from './conversation-scope.ts';
import { redactionSettings } from './from-env.ts';
import { Redactor } from './redactor.ts';

/**
 * `value` as the platform's own log may keep it: a text that came from outside (a file's line a
 * refused diff quotes, an MCP server's or a third-party API's error body) passes the redaction
 * layer before it is logged. A string, an array or a plain object has every string in it
 * redacted; an error stays an error of its class, each of its fields redacted (its message,
 * stack and cause too, as the logger prints them). Other values are kept as they are. The
 * placeholders are keyed by the conversation (`scope`), so a log line's match the prompt's; no
 * ledger counts them, as a log is none of the conversation's doors.
 */
export async function redactedForLog<T>(
  value: T,
  scope: string = tagScope('log'),
  settings: RedactionSettings = redactionSettings(),
): Promise<T> {
  return (await redactedNode(value, new Redactor(scope, settings), new Map())) as T;
}

async function redactedNode(node: unknown, redactor: Redactor, copies: Map<Error, Error>): Promise<unknown> {
  if (typeof node === 'string') return (await redactor.redact(node)).text;
  if (node instanceof Error) return redactedError(node, redactor, copies);
  if (Array.isArray(node)) {
    const out: unknown[] = [];
    for (const item of node) out.push(await redactedNode(item, redactor, copies));
    return out;
  }
  if (node !== null && typeof node === 'object' && Object.getPrototypeOf(node) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(node)) out[key] = await redactedNode(item, redactor, copies);
    return out;
  }
  return node;
}

/** A copy of `error` (same prototype, same fields and their enumerability), every field redacted. */
async function redactedError(error: Error, redactor: Redactor, copies: Map<Error, Error>): Promise<Error> {
  const known = copies.get(error);
  if (known !== undefined) return known;
  const copy = Object.create(Object.getPrototypeOf(error)) as Error;
  copies.set(error, copy);
  for (const key of Object.getOwnPropertyNames(error)) {
    const descriptor = Object.getOwnPropertyDescriptor(error, key);
    Object.defineProperty(copy, key, {
      value: await redactedNode(Reflect.get(error, key), redactor, copies),
      enumerable: descriptor?.enumerable ?? false,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}
