import { RecordVersionNotReadableError, UnknownRecordKindError } from './errors.ts';

/**
 * Every kind of record the table holds, by its key, with the schema version this release writes
 * (`schemaVersion` on the item) and the upgrades that read the older ones.
 *
 * A record without `schemaVersion` was written before records carried one: version 0. Its shape
 * is version 1's, so its upgrade changes nothing. When a record's shape changes, raise its
 * `current` and append the upgrade from the previous version (a function of the stored item to
 * the next version's item), so a release reads what the release before it wrote. Updates never
 * rewrite a version (they write some fields, not the whole shape): an upgrade is given the item
 * as it was read, which may be a projection of a few fields. See docs/operations.md, "Upgrading
 * and rolling back", for the order of a shape change across releases.
 */
export const SCHEMA_VERSION_ATTRIBUTE = 'schemaVersion';

export type StoredItem = Record<string, unknown>;
export type RecordUpgrade = (item: StoredItem) => StoredItem;

export interface RecordKind {
  /** The partition key starts with this. */
  readonly pk: string;
  /** The sort key starts with this, or equals it when `exactSort`. */
  readonly sk: string;
  readonly exactSort?: boolean;
  /** The version this release writes. */
  readonly current: number;
  /**
   * The upgrades of the versions still read, oldest first: the last reads `current - 1` as
   * `current`, the one before it `current - 2` as `current - 1`, and so on.
   */
  readonly upgrades: readonly RecordUpgrade[];
}

/** Version 0 (no `schemaVersion`) has version 1's shape: records only gained the attribute. */
const unversioned: RecordUpgrade = (item) => item;

const kind = (pk: string, sk: string, exactSort = false): RecordKind => ({
  pk,
  sk,
  exactSort,
  current: 1,
  upgrades: [unversioned],
});

/**
 * A kind first written by this release: no record of it was ever stored without a version, so
 * there is no version 0 to read (and no previous release's record of it to test).
 */
const newKind = (pk: string, sk: string, exactSort = false): RecordKind => ({
  pk,
  sk,
  exactSort,
  current: 1,
  upgrades: [],
});

export const RECORD_KINDS = {
  /** The conversation: status, wait (its task token), anchors, participants, ledger, budget, approvals. */
  conversation: kind('CONV#', 'META', true),
  message: kind('CONV#', 'MSG#'),
  /** A Slack post's idempotency record, and the attempt before it (post-ledger). */
  post: kind('CONV#', 'POST#'),
  postAttempt: kind('CONV#', 'POSTTRY#'),
  outboxEntry: kind('CONV#', 'OUTBOX#'),
  outboxFailure: kind('CONV#', 'OUTBOXFAIL#'),
  outboxResolved: kind('CONV#', 'OUTBOXRESOLVED#'),
  /** The index of conversations with outbox entries: pk `OUTBOX`, sort key the conversation's pk. */
  outboxIndex: kind('OUTBOX', 'CONV#'),
  progress: kind('CONV#', 'PROGRESS', true),
  transcript: kind('CONV#', 'TRANSCRIPT#'),
  incident: kind('CONV#', 'WF#INCIDENT', true),
  hypothesis: kind('CONV#', 'WF#HYP#'),
  evidence: kind('CONV#', 'EVIDENCE#'),
  evidenceCounter: kind('CONV#', 'EVIDENCE_COUNTER', true),
  queryBudget: kind('CONV#', 'QUERIES#'),
  thread: kind('THREAD#', 'THREAD', true),
  inboxEnvelope: kind('INBOX#', 'ENVELOPE', true),
  dailySpend: kind('SPEND#', 'SPEND', true),
  buildBaseline: kind('BASELINE#', 'SHA#'),
  feedback: kind('FEEDBACK#', ''),
  channelActive: kind('CHANNEL#', 'ACTIVE', true),
  channelBotMessage: kind('CHANNEL#', 'BOTMSG#'),
  channelMessage: kind('CHANCONV#', 'MSG#'),
  channelTurn: kind('CHANCONV#', 'TURN#'),
  channelAnswer: kind('CHANCONV#', 'ANSWER#'),
  /** A channel conversation's ledger (it has no conversation record to hold one). */
  channelLedger: newKind('CHANCONV#', 'LEDGER', true),
  /** The tags of the values of one kind the redaction layer replaced in the conversation. */
  redactionsSeen: newKind('CONV#', 'REDACTED#'),
  /** A GitHub text refused once, by repository and source id: a later edit of it stays refused. */
  refusedSource: newKind('REFUSED#', 'SOURCE#'),
} as const satisfies Record<string, RecordKind>;

export type RecordKindName = keyof typeof RECORD_KINDS;

const KIND_ENTRIES = Object.entries(RECORD_KINDS) as [RecordKindName, RecordKind][];

/** The kind of the record with this key, or undefined for a key of no kind. */
export function recordKindOf(key: { pk?: unknown; sk?: unknown }): RecordKindName | undefined {
  const { pk, sk } = key;
  if (typeof pk !== 'string' || typeof sk !== 'string') return undefined;
  // The outbox index's pk is exactly `OUTBOX`; `OUTBOX#...` is no key of the table.
  const found = KIND_ENTRIES.find(
    ([, k]) =>
      (k.pk.endsWith('#') ? pk.startsWith(k.pk) : pk === k.pk) &&
      (k.exactSort ? sk === k.sk : sk.startsWith(k.sk)),
  );
  return found?.[0];
}

const keyText = (key: { pk?: unknown; sk?: unknown }) => `${String(key.pk)}/${String(key.sk)}`;

/** The version a write of this key stamps; a key of no kind is a writer's defect. */
export function writeVersionOf(key: { pk?: unknown; sk?: unknown }): number {
  const name = recordKindOf(key);
  if (name === undefined) throw new UnknownRecordKindError(keyText(key));
  return RECORD_KINDS[name].current;
}

/**
 * A stored item as this release reads it: upgraded from its version to the current one, without
 * `schemaVersion` (the version is the table's concern, not the reader's). An item of no kind is
 * returned as it is; a version this release cannot read is refused.
 */
export function readRecord(key: { pk?: unknown; sk?: unknown }, item: StoredItem): StoredItem {
  const name = recordKindOf(key);
  const { [SCHEMA_VERSION_ATTRIBUTE]: version = 0, ...fields } = item;
  if (name === undefined) return item;
  const readable = readableVersions(name);
  if (typeof version !== 'number' || !readable.includes(version)) {
    throw new RecordVersionNotReadableError(keyText(key), version, readable);
  }
  const { upgrades } = RECORD_KINDS[name];
  // The upgrades from the item's version on, in order: version n is upgrades[n - oldest]'s input.
  return upgrades
    .slice(version - (readable[0] ?? 0))
    .reduce<StoredItem>((item, upgrade) => upgrade(item), fields);
}

/** The versions a reader of this kind accepts, oldest first. */
export function readableVersions(name: RecordKindName): number[] {
  const { current, upgrades } = RECORD_KINDS[name];
  const oldest = current - upgrades.length;
  return Array.from({ length: current - oldest + 1 }, (_, i) => oldest + i);
}
