import { WebClient, type WebClientOptions } from '@slack/web-api';
import { type RedactionSettings, Redactor, redactionSettings } from '../redaction/index.ts';

/**
 * The keys whose strings people read in Slack: message text, Block Kit text objects, stream
 * chunks, statuses and titles, file contents. Ids, timestamps, action ids and button values (an
 * approval's nonce) are not text and pass untouched.
 */
const TEXT_KEYS = new Set([
  'text',
  'markdown_text',
  'title',
  'alt_text',
  'initial_comment',
  'content',
  'status',
  'loading_messages',
  'fallback',
  'pretext',
  'footer',
  'placeholder',
  'details',
  'output',
  'prompts',
]);

/**
 * Slack's WebClient with the redaction layer on every call it makes: whatever the platform
 * writes to Slack (posts, updates, streams, the timeline, statuses, App Home, shared files)
 * goes through `apiCall`, so one override covers every method. Placeholders are keyed by the
 * thread the call writes to.
 */
export class RedactingWebClient extends WebClient {
  private readonly redaction: RedactionSettings;

  constructor(token?: string, options?: WebClientOptions, settings: RedactionSettings = redactionSettings()) {
    super(token, options);
    this.redaction = settings;
  }

  /** Settles when the latest call was handed to Slack's client. */
  private dispatched: Promise<unknown> = Promise.resolve();

  override apiCall(method: string, options: Record<string, unknown> = {}) {
    const thread = options.thread_ts ?? options.ts ?? '';
    const redactor = new Redactor(`slack:${String(options.channel ?? '')}:${String(thread)}`, this.redaction);
    const redacted = redactText(options, redactor);
    // Calls reach Slack in the order they were made: a long text's redaction must not let a
    // later update of the same message overtake an earlier one.
    const ready = this.dispatched.then(() => redacted);
    this.dispatched = ready.catch(() => undefined);
    return ready.then((input) => super.apiCall(method, input as Record<string, unknown>));
  }
}

async function redactText(node: unknown, redactor: Redactor, key = ''): Promise<unknown> {
  if (typeof node === 'string') return TEXT_KEYS.has(key) ? (await redactor.redact(node)).text : node;
  if (Buffer.isBuffer(node))
    return TEXT_KEYS.has(key) ? Buffer.from((await redactor.redact(node.toString('utf8'))).text) : node;
  if (Array.isArray(node)) {
    const out: unknown[] = [];
    // An array's items are read under the array's key (`loading_messages`, `elements`).
    for (const item of node) out.push(await redactText(item, redactor, key));
    return out;
  }
  if (node !== null && typeof node === 'object' && Object.getPrototypeOf(node) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(node)) out[name] = await redactText(value, redactor, name);
    return out;
  }
  return node;
}
