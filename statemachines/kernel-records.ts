import type { ITableRef } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { keyFormat } from '../lambdas/kernel/keys.ts';
import { RECORD_KINDS, SCHEMA_VERSION_ATTRIBUTE } from '../lambdas/kernel/record-versions.ts';
import {
  addTransientRetry,
  catchFailure,
  DYNAMODB_TASK_TIMEOUT,
  DYNAMODB_TRANSIENT_ERRORS,
  FAILURE_PATH,
  stateNameProp,
} from './kernel.ts';
import { KERNEL_STATE } from './kernel-state.ts';
import { slackPost } from './slack-post.ts';

/**
 * Kernel fragments that write the conversation's record with the direct DynamoDB integration
 * (no logic, so no Lambda), through the kernel's key format (lambdas/kernel/keys.ts).
 */

/**
 * What an update of the conversation's record adds to keep its `schemaVersion` as the functions'
 * writes do (lambdas/adapters/dynamo-record-versions.ts): an item without one gets this release's
 * version, one with a version keeps it. The state machines' own updates only ever update a
 * conversation that exists (`attribute_exists(pk)`), which a put of the functions wrote with its
 * version, and change fields whose shape that version describes.
 */
export const CONVERSATION_VERSION_STAMP = {
  set: '#schemaVersion = if_not_exists(#schemaVersion, :schemaVersion)',
  names: { '#schemaVersion': SCHEMA_VERSION_ATTRIBUTE },
  values: { ':schemaVersion': tasks.DynamoAttributeValue.fromNumber(RECORD_KINDS.conversation.current) },
} as const;

/**
 * The key of the conversation's record (`keys.conversation`) for a DynamoDB task, built from
 * `$.conversationId` or the path given.
 */
export function conversationItemKey(
  conversationIdPath = KERNEL_STATE.at('conversationId'),
): Record<'pk' | 'sk', tasks.DynamoAttributeValue> {
  return {
    pk: tasks.DynamoAttributeValue.fromString(
      sfn.JsonPath.format(`${keyFormat.conversationPrefix}{}`, sfn.JsonPath.stringAt(conversationIdPath)),
    ),
    sk: tasks.DynamoAttributeValue.fromString(keyFormat.conversationSort),
  };
}

/** A post telling people a conversation failed: a fixed text, or a template of the SlackPost function. */
export interface FailureNotice {
  readonly slackPostFn: IFunction;
  /** Channel: a literal or `JsonPath.stringAt(...)`. */
  readonly channel: string;
  /** Thread: a literal or `JsonPath.stringAt(...)`. @default - top level */
  readonly threadTs?: string;
  /** @default - none: `template` is required then */
  readonly text?: string;
  /** @default - none: `text` is required then */
  readonly template?: { readonly name: string; readonly data: Record<string, unknown> };
  /** @default 'Tell people it failed' */
  readonly stateName?: string;
}

export interface FailConversationProps {
  /** The conversations table. */
  readonly table: ITableRef;
  /**
   * Tell the conversation's people, where they are, that it ended in failure (an essential
   * post: it waits for Slack to come back), before it is marked failed.
   * @default - nobody is told
   */
  readonly notice?: FailureNotice;
  /**
   * Name of the state marking the conversation failed.
   * @default 'Mark failed'
   */
  readonly markStateName?: string;
  /**
   * Name of the Fail state that ends the execution.
   * @default 'Failed'
   */
  readonly failStateName?: string;
}

/**
 * The end of a failed conversation: marks it `failed` (so it is not left `active` forever,
 * I6) and fails the execution with the original error from `$.failure`. If even the mark
 * fails, the execution still fails.
 */
export function failConversation(scope: Construct, id: string, props: FailConversationProps): sfn.IChainable {
  const failed = sfn.Fail.jsonPath(scope, `${id} end`, {
    stateName: props.failStateName ?? 'Failed',
    errorPath: `${FAILURE_PATH}.Error`,
    causePath: `${FAILURE_PATH}.Cause`,
  });
  const mark = setConversationFields(scope, id, {
    stateName: props.markStateName ?? 'Mark failed',
    table: props.table,
    status: 'failed',
  });
  catchFailure(mark, failed);
  mark.next(failed);
  if (props.notice === undefined) return mark;
  return tellThen(scope, `${id} notice`, props.notice, mark);
}

/**
 * Tells people a conversation failed (an essential post), then goes on to `next` (the states
 * that mark it failed), keeping the failure at `$.failure`; `next` too when nobody could be
 * told even after the long retries.
 */
export function tellThen(
  scope: Construct,
  id: string,
  notice: FailureNotice,
  next: sfn.IChainable,
): sfn.IChainable {
  const tell = slackPost(scope, id, {
    stateName: notice.stateName ?? 'Tell people it failed',
    slackPostFn: notice.slackPostFn,
    channel: notice.channel,
    ...(notice.threadTs === undefined ? {} : { threadTs: notice.threadTs }),
    ...(notice.text === undefined ? {} : { text: notice.text }),
    ...(notice.template === undefined ? {} : { template: notice.template }),
    // Keep the original failure at $.failure for the Fail state.
    resultPath: KERNEL_STATE.at('failureNotice'),
  });
  tell.addCatch(next, { errors: [sfn.Errors.ALL], resultPath: KERNEL_STATE.at('failureNoticeError') });
  return tell.next(next);
}

export interface SetConversationFieldsProps {
  /**
   * The state's name in the execution graph, e.g. 'Mark resolved'.
   * @default - the construct id
   */
  readonly stateName?: string;
  /** The conversations table. */
  readonly table: ITableRef;
  /**
   * New status of the conversation.
   * @default - unchanged
   */
  readonly status?: string;
  /**
   * New phase of the conversation, e.g. `investigating`.
   * @default - unchanged
   */
  readonly phase?: string;
}

/**
 * Sets the conversation's status and/or phase with the direct DynamoDB integration (no
 * logic, so no Lambda). The update is conditional on the conversation existing,
 * so a wrong id fails the task instead of creating a stray item.
 */
export function setConversationFields(
  scope: Construct,
  id: string,
  props: SetConversationFieldsProps,
): tasks.DynamoUpdateItem {
  const fields = { status: props.status, phase: props.phase };
  const set = Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined);
  if (set.length === 0) throw new Error(`${id}: setConversationFields needs a status or a phase to set`);
  const task = tasks.DynamoUpdateItem.jsonPath(scope, id, {
    ...stateNameProp(props.stateName),
    table: props.table,
    key: conversationItemKey(),
    // `status` is a DynamoDB reserved word: every field goes through a name placeholder.
    updateExpression: `SET ${set.map(([name]) => `#${name} = :${name}`).join(', ')}, ${CONVERSATION_VERSION_STAMP.set}`,
    conditionExpression: 'attribute_exists(pk)',
    expressionAttributeNames: {
      ...Object.fromEntries(set.map(([name]) => [`#${name}`, name])),
      ...CONVERSATION_VERSION_STAMP.names,
    },
    expressionAttributeValues: {
      ...Object.fromEntries(
        set.map(([name, value]) => [`:${name}`, tasks.DynamoAttributeValue.fromString(value)]),
      ),
      ...CONVERSATION_VERSION_STAMP.values,
    },
    resultPath: sfn.JsonPath.DISCARD,
    taskTimeout: sfn.Timeout.duration(DYNAMODB_TASK_TIMEOUT),
  });
  addTransientRetry(task, DYNAMODB_TRANSIENT_ERRORS);
  return task;
}
