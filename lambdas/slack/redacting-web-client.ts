import { type FilesUploadV2Arguments, WebClient, type WebClientOptions } from '@slack/web-api';
import {
  doorRedactor,
  type RedactionSettings,
  type Redactor,
  redactionSettings,
} from '../redaction/index.ts';

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
 * goes through `apiCall` (and a shared file through `filesUploadV2`, which does not), so two
 * overrides cover every method. Placeholders are keyed by the conversation the call is made for
 * (lambdas/redaction/conversation-scope.ts), or by the thread it writes to when none is known.
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
    return this.redacted(options).then((input) => super.apiCall(method, input));
  }

  /**
   * `files.uploadV2` is not one Web API call: the client asks for an upload URL, posts the bytes
   * there and completes the upload, and `client.files.uploadV2` reaches this method without
   * passing `apiCall`. The file's content, title and comment are redacted here, before the bytes
   * leave.
   */
  override filesUploadV2(options: FilesUploadV2Arguments) {
    return this.redacted(options as unknown as Record<string, unknown>).then((input) =>
      super.filesUploadV2(input as unknown as FilesUploadV2Arguments),
    );
  }

  /** The call's options redacted, settling in the order the calls were made. */
  private redacted(options: Record<string, unknown>): Promise<Record<string, unknown>> {
    const thread = options.thread_ts ?? options.ts ?? '';
    const channel = options.channel ?? options.channel_id ?? '';
    const redactor = doorRedactor(`slack:${String(channel)}:${String(thread)}`, this.redaction);
    const redacted = redactText(options, redactor) as Promise<Record<string, unknown>>;
    // Calls reach Slack in the order they were made: a long text's redaction must not let a
    // later update of the same message overtake an earlier one.
    const ready = this.dispatched.then(() => redacted);
    this.dispatched = ready.catch(() => undefined);
    return ready;
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
