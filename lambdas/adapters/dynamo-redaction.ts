import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { doorRedactor, type RedactionSettings, Redactor, redactionSettings } from '../redaction/index.ts';

/**
 * Attributes that hold keys, ids, tokens and digests the platform matches exactly (a wait's
 * task token, an approval's nonce, a post's idempotency key): never rewritten. Their values are
 * the platform's own, not text from people or tools.
 */
const EXACT =
  /^(?:pk|sk|ttl|ts|id|ids|token|key|nonce|arn|sha|digest|hash|gsi\w*)$|[a-z](?:Id|ID|Ids|Ts|Token|Key|Nonce|Arn|Sha|Digest|Hash)$/;
/**
 * Key prefixes of items that belong to one conversation, whose id follows the prefix. Only the
 * kernel's conversations (`CONV#`) have a ledger to count what is replaced in them.
 */
const CONVERSATION_PREFIXES = ['CONV#', 'CHANCONV#', 'FEEDBACK#'];
const LEDGER_PREFIX = 'CONV#';
const MIDDLEWARE = 'redactionMiddleware';

type Input = Record<string, unknown>;

/**
 * Puts the redaction layer in front of every write of the document client: the strings of
 * every item put (`Put`, `BatchWrite`, `TransactWrite`) and every value an update sets are
 * redacted before marshalling, so no stored message, transcript, finding or envelope holds a
 * value the layer would replace. Placeholders are keyed by the item's conversation (named by its
 * `pk`, or the one the write is made for), the same key agent turns use, so a stored value and a
 * prompt's agree.
 */
export function withRedaction(
  doc: DynamoDBDocumentClient,
  settings: RedactionSettings = redactionSettings(),
): DynamoDBDocumentClient {
  // A document client shares its middleware with the DynamoDB client it wraps: one layer per client.
  if (doc.middlewareStack.identify().some((entry) => entry.startsWith(`${MIDDLEWARE} `))) return doc;
  doc.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as Input;
      await redactWrite(input, settings);
      return next(args);
    },
    { step: 'initialize', priority: 'high', name: MIDDLEWARE },
  );
  return doc;
}

async function redactWrite(input: Input, settings: RedactionSettings): Promise<void> {
  if (isRecord(input.Item)) input.Item = await redactItem(input.Item, redactorOf(input.Item, settings));
  if (isRecord(input.ExpressionAttributeValues) && isRecord(input.Key)) {
    input.ExpressionAttributeValues = await redactItem(
      input.ExpressionAttributeValues,
      redactorOf(input.Key, settings),
    );
  }
  if (Array.isArray(input.TransactItems)) {
    for (const item of input.TransactItems) {
      if (!isRecord(item)) continue;
      for (const write of [item.Put, item.Update]) if (isRecord(write)) await redactWrite(write, settings);
    }
  }
  if (isRecord(input.RequestItems)) {
    for (const requests of Object.values(input.RequestItems)) {
      if (!Array.isArray(requests)) continue;
      for (const request of requests)
        if (isRecord(request) && isRecord(request.PutRequest))
          await redactWrite(request.PutRequest, settings);
    }
  }
}

/**
 * The item's redactor, keyed by its conversation: by its key when the key names one (counted in
 * that conversation's ledger when it has one), else the one the write is made for, else the key.
 */
function redactorOf(item: Input, settings: RedactionSettings): Redactor {
  const pk = typeof item.pk === 'string' ? item.pk : '';
  const prefix = CONVERSATION_PREFIXES.find((candidate) => pk.startsWith(candidate));
  if (prefix === undefined) return doorRedactor(pk, settings);
  const conversationId = pk.slice(prefix.length);
  return new Redactor(conversationId, settings, prefix === LEDGER_PREFIX ? conversationId : undefined);
}

async function redactItem(item: Input, redactor: Redactor): Promise<Input> {
  const walk = async (node: unknown, name: string): Promise<unknown> => {
    if (EXACT.test(name.replace(/^:/, ''))) return node;
    if (typeof node === 'string') return (await redactor.redact(node)).text;
    if (Array.isArray(node)) {
      const out: unknown[] = [];
      for (const value of node) out.push(await walk(value, ''));
      return out;
    }
    if (isRecord(node)) {
      const out: Input = {};
      for (const [key, value] of Object.entries(node)) out[key] = await walk(value, key);
      return out;
    }
    return node;
  };
  return (await walk(item, '')) as Input;
}

function isRecord(value: unknown): value is Input {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}
