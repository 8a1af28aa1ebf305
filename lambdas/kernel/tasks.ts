import * as z from 'zod';
import { ApprovalRequest } from './approvals.ts';
import { DrainedMessage } from './drained-message.ts';
import { ConversationStatus, SenderType, WaitAccepts } from './model.ts';

/**
 * Inputs and outputs of the kernel's state machine tasks. State machines pass ids and small
 * facts only; message bodies and transcripts stay in DynamoDB.
 */

/**
 * Where a conversation that did not begin in Slack came from: a GitHub issue or pull request,
 * or an alert. Its anchor is `github:<owner>/<repo>` + the number, or `alert:<source>` + the
 * incident key, in the places a Slack conversation has its channel and thread.
 */
export const ExecutionOrigin = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('github'),
    repository: z.string().min(1),
    number: z.number().int().positive(),
    url: z.string(),
  }),
  z.object({
    kind: z.literal('alert'),
    source: z.enum(['cloudwatch', 'pagerduty']),
    name: z.string().min(1),
    incidentKey: z.string().min(1),
    url: z.string().optional(),
  }),
]);
export type ExecutionOrigin = z.infer<typeof ExecutionOrigin>;

/** The input every workflow execution starts with (written by the Router). */
export const ExecutionInput = z.object({
  conversationId: z.string().min(1),
  workflow: z.string().min(1),
  channel: z.string().min(1),
  /** The thread the conversation began in; absent for a slash command (the bot's first post opens it). */
  threadTs: z.string().min(1).optional(),
  ownerId: z.string().min(1),
  /** Turn counter carried across continue-as-new; a fresh conversation starts at 0. */
  turn: z.number().int().nonnegative().default(0),
  /** Absent for a conversation started in Slack. */
  origin: ExecutionOrigin.optional(),
});
export type ExecutionInput = z.infer<typeof ExecutionInput>;

export const RegisterWaitInput = z.object({
  conversationId: z.string().min(1),
  taskToken: z.string().min(1),
  accepts: WaitAccepts,
  /** The conversation's phase while it waits, e.g. `awaiting_reporter`. */
  phase: z.string().min(1),
  /** The conversation's status while it waits (the bug workflow's `pending_verification`); absent: unchanged. */
  status: ConversationStatus.optional(),
});
export type RegisterWaitInput = z.infer<typeof RegisterWaitInput>;

/** What a woken wait's task returns (sent by RegisterWait or the Router with SendTaskSuccess). */
export const WakeOutput = z.object({
  woken: z.enum(['message', 'close']),
});
export type WakeOutput = z.infer<typeof WakeOutput>;

export const DrainInput = z.object({
  conversationId: z.string().min(1),
  /** The turn the drained messages are handed to; a retried Drain with the same turn returns the same set. */
  turn: z.number().int().nonnegative(),
  /**
   * The status and/or phase the conversation takes as the turn begins (`active`,
   * `investigating`), set in the same write that ends the wait: the workflow needs no separate
   * "Mark" state on the wake path.
   */
  mark: z
    .object({ status: ConversationStatus.optional(), phase: z.string().min(1).optional() })
    .refine((mark) => mark.status !== undefined || mark.phase !== undefined, {
      message: 'a mark sets a status, a phase or both',
    })
    .optional(),
});
export type DrainInput = z.infer<typeof DrainInput>;

export const DrainOutput = z.object({
  turn: z.number().int().nonnegative(),
  closeRequested: z.boolean(),
  count: z.number().int().nonnegative(),
  messages: z.array(DrainedMessage),
});
export type DrainOutput = z.infer<typeof DrainOutput>;

export const SlackPostInput = z
  .object({
    conversationId: z.string().min(1),
    channel: z.string().min(1),
    threadTs: z.string().optional(),
    /** The message text; give either `text` (with optional `blocks`) or a `template`. */
    text: z.string().min(1).optional(),
    blocks: z.array(z.record(z.string(), z.unknown())).optional(),
    /**
     * A message template of the workflow's SlackPost function and its data: SlackPost renders
     * the text and the blocks (lambdas/slack/templates), so a state machine passes an agent's
     * result instead of formatting it. Which names and data are valid is the function's to check.
     */
    template: z
      .object({ name: z.string().regex(/^[a-z][a-z0-9_]*$/), data: z.record(z.string(), z.unknown()) })
      .optional(),
    /**
     * Register the posted message's thread as an anchor of the conversation (e.g. the summary
     * thread developers answer in), so replies in it are routed to this conversation.
     */
    anchor: z
      .object({
        name: z.string().min(1),
        ownerRole: SenderType.nullable(),
        othersRole: SenderType.nullable(),
      })
      .optional(),
    /**
     * Buttons for a decision (kernel/approvals.ts): appended to the message, and the approval
     * opened on the conversation once posted, replacing any earlier one of its kind.
     */
    approval: ApprovalRequest.optional(),
    /** Posting twice with the same key posts once (a retried task must not double-post). */
    idempotencyKey: z.string().min(1).optional(),
    /**
     * Set by the outbox (lambdas/slack/outbox.ts) for a post kept through a Slack outage: the
     * message opens with a line saying it was delayed, and since when.
     */
    delayedSince: z.string().optional(),
    /**
     * Set by SlackPost for a post that takes the place of a closed timeline in its thread
     * (lambdas/progress/replaced-timeline.ts): the timeline's summary, shown above the message.
     */
    timeline: z.string().min(1).max(3_000).optional(),
    /**
     * Appends the conversation's estimated model cost (its ledger) to the message: for a
     * conversation's final message.
     */
    withCost: z.boolean().optional(),
    /**
     * A message to link to: its permalink (`chat.getPermalink`) is handed to the template as
     * `data.permalink`, absent when Slack gives none. Only with a `template`.
     */
    permalinkOf: z.object({ channel: z.string().min(1), ts: z.string().min(1) }).optional(),
  })
  .refine((input) => (input.template === undefined) === (input.text !== undefined), {
    message: 'give either `text` or a `template`, not both and not neither',
  })
  .refine((input) => input.permalinkOf === undefined || input.template !== undefined, {
    message: 'a permalink is handed to a template: give `permalinkOf` with a `template` only',
  })
  .refine((input) => input.template === undefined || input.blocks === undefined, {
    message: 'a `template` renders its own blocks: do not give `blocks` with it',
  });
export type SlackPostInput = z.infer<typeof SlackPostInput>;
