import * as z from 'zod';
import { CommandEntity, GithubRepository } from './command-entities.ts';
import { SenderType } from './model.ts';

/**
 * How a conversation of a workflow begins. The stack writes one registration per workflow
 * into the Router's environment (`WORKFLOWS`); the Router starts the named state machine.
 */
export const Trigger = z.discriminatedUnion('type', [
  /** A top-level message in this channel (the bug-reports channel). */
  z.object({ type: z.literal('channel_message'), channel: z.string().min(1) }),
  /**
   * A slash command such as `/prd`; `description` and `usageHint` are what Slack shows in its
   * command menu (the app manifest, `npm run slack:manifest`).
   */
  z.object({
    type: z.literal('slash_command'),
    command: z.string().startsWith('/'),
    description: z.string().min(1).max(2000).optional(),
    usageHint: z.string().min(1).max(1000).optional(),
    /**
     * The kind of thing the command names, as its workflow declares it (kernel/command-entities.ts):
     * the conversation is then that thing's, whichever way it began (its own event, such as an
     * issue's label or an incident's alert, reaches the same one), and a repeat of the command
     * is answered with where it runs instead of starting a second (route-command.ts).
     */
    names: CommandEntity.optional(),
  }),
  /**
   * A top-level message that mentions the bot, in a channel no `channel_message` trigger owns.
   * Without `keywords` and `channels` every such mention matches; with them, only a mention in
   * one of `channels`, or one whose text (the bot's mention taken out) begins with one of
   * `keywords` as a whole word or phrase, e.g. `@bot idea: dark mode` for the keyword `idea`.
   */
  z.object({
    type: z.literal('mention'),
    keywords: z.array(z.string().trim().min(1)).optional(),
    channels: z.array(z.string().min(1)).optional(),
  }),
  /** An issue labelled `label` in `repository` (`owner/name`), e.g. `agent`. */
  z.object({
    type: z.literal('github_issue_labeled'),
    repository: GithubRepository,
    label: z.string().min(1),
  }),
  /**
   * A pull request review submitted in `repository` on a pull request no conversation owns.
   * (Comments and reviews on an issue or pull request a conversation owns wake that
   * conversation, like a reply in its Slack thread; that needs no trigger.)
   */
  z.object({ type: z.literal('github_pull_request_review'), repository: GithubRepository }),
  /**
   * An alert that opens an incident (a CloudWatch alarm going into ALARM, a PagerDuty
   * `incident.triggered`) from `source`, for an alarm or PagerDuty service named in `names`
   * (PagerDuty: the service's name or id) or starting with one of `namePrefixes`; with
   * neither, every alert of the source. Later updates of the same incident (OK, acknowledged,
   * resolved) wake the conversation it opened.
   */
  z.object({
    type: z.literal('alert'),
    source: z.enum(['cloudwatch', 'pagerduty']),
    names: z.array(z.string().min(1)).optional(),
    namePrefixes: z.array(z.string().min(1)).optional(),
  }),
]);
export type Trigger = z.infer<typeof Trigger>;

export const WorkflowRegistration = z.object({
  workflow: z.string().regex(/^[a-z][a-z0-9_]*$/),
  stateMachineArn: z.string().min(1),
  triggers: z.array(Trigger).min(1),
  /** Role of the person who started the conversation, in its first thread. */
  ownerRole: SenderType,
  /** Role of anyone else writing in that thread; null ignores them (its third party). */
  othersRole: SenderType.nullable(),
  /** Whether the owner's close intent ("never mind", "cancel") ends the conversation. */
  closeOnIntent: z.boolean().default(true),
});
export type WorkflowRegistration = z.infer<typeof WorkflowRegistration>;

export const WorkflowRegistrations = z.array(WorkflowRegistration);

/**
 * The registrations with their state machines' ARNs put back: the stack writes the triggers
 * into the functions' configuration file and only the ARNs (known at deploy) into the
 * environment, `{ workflow: arn }`. A registration that carries its ARN keeps it.
 */
export function withStateMachineArns(
  registrations: readonly Record<string, unknown>[],
  arns: Readonly<Record<string, string>>,
): unknown[] {
  return registrations.map((registration) => {
    const arn = typeof registration.workflow === 'string' ? arns[registration.workflow] : undefined;
    return arn === undefined ? registration : { stateMachineArn: arn, ...registration };
  });
}
