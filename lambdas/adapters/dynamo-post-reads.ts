import { keys } from '../kernel/keys.ts';
import { Conversation } from '../kernel/model.ts';
import type { SlackPostOutput } from '../kernel/slack-post-output.ts';
import type { ProgressRecord } from '../progress/ports.ts';
import { conversationFields } from './conversation-fields.ts';
import { postRecordOf } from './dynamo-post-ledger.ts';
import { progressKey, progressRecordOf } from './dynamo-progress-store.ts';
import { DynamoTable } from './dynamo-table.ts';

/** What a SlackPost reads of its conversation's items before it posts. */
export interface PostReads {
  /** The conversation's record; undefined when there is none. */
  conversation: Conversation | undefined;
  /** The post's idempotency record (an earlier attempt posted it); undefined when there is none. */
  recorded: SlackPostOutput | undefined;
  /**
   * The conversation's live progress record, when it was asked for and is readable: one that
   * does not parse is left out, for the progress code to read and report itself (live progress
   * never fails a post).
   */
  progress?: { record: ProgressRecord | undefined };
}

/**
 * SlackPost's reads of single items in one request (BatchGetItem, strongly consistent): the
 * conversation's record, the post's idempotency record (`POST#<key>`, adapters/dynamo-post-ledger.ts)
 * and the live progress record (`PROGRESS`, adapters/dynamo-progress-store.ts), each checked by
 * the schema its own adapter checks it with. Three reads that would each be a request of their own.
 */
export class DynamoPostReads extends DynamoTable {
  async read(
    conversationId: string,
    options: { idempotencyKey?: string | undefined; progress: boolean },
  ): Promise<PostReads> {
    const conversationKey = keys.conversation(conversationId);
    const postKey =
      options.idempotencyKey === undefined ? undefined : keys.post(conversationId, options.idempotencyKey);
    const timelineKey = options.progress ? progressKey(conversationId) : undefined;
    const items = await this.getItems(
      [conversationKey, postKey, timelineKey].filter((key) => key !== undefined),
    );
    const found = (key: { sk: string } | undefined) => (key === undefined ? undefined : items.get(key.sk));
    const conversation = found(conversationKey);
    const recorded = found(postKey);
    const progress = found(timelineKey);
    return {
      conversation: conversation && conversationFields(conversationId, conversation, Conversation),
      recorded: postKey && recorded && postRecordOf(postKey, recorded),
      ...(options.progress ? readableProgress(conversationId, progress) : {}),
    };
  }
}

function readableProgress(
  conversationId: string,
  item: Record<string, unknown> | undefined,
): Pick<PostReads, 'progress'> {
  try {
    return { progress: { record: item && progressRecordOf(conversationId, item) } };
  } catch {
    return {};
  }
}
