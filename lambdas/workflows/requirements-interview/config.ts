import * as z from 'zod';

const SlackChannelId = z
  .string()
  .regex(/^[A-Z][A-Z0-9_]+$/, 'expected a Slack channel id such as C0123456789');

/**
 * The requirements interview's section of the stack configuration
 * (`slackAgents.requirementsInterview`): the confidence its clarification needs
 * before the PRD is written, the most clarification turns before it proceeds anyway (listing
 * the open unknowns), and how long it waits for an answer (once before a reminder, once after
 * it). Besides `/prd <idea>`, a top-level mention of the bot starts an interview when its text
 * (the mention taken out) begins with one of `mentionKeywords` (`@bot idea: dark mode`), or
 * when it is in one of `mentionChannels`; any other mention is a channel conversation.
 */
export const RequirementsInterviewSettings = z.strictObject({
  /**
   * Off: no `/prd` command, no interview started by a mention (such a mention is a channel
   * conversation), and none of the interview's functions or state machine deployed.
   * @default true
   */
  enabled: z.boolean().default(true),
  /** @default 95 */
  confidenceThreshold: z.number().int().min(1).max(100).default(95),
  /** @default 5 */
  maxClarificationTurns: z.number().int().min(1).max(20).default(5),
  /** @default 86400 (24 hours) */
  answerWaitSeconds: z.number().int().positive().default(86_400),
  /** @default ['prd', 'idea', 'product idea', 'feature idea', 'requirements'] */
  mentionKeywords: z
    .array(z.string().trim().min(1))
    .default(['prd', 'idea', 'product idea', 'feature idea', 'requirements']),
  /** Channels where every top-level mention of the bot starts an interview. @default [] */
  mentionChannels: z.array(SlackChannelId).default([]),
});
export type RequirementsInterviewSettings = z.infer<typeof RequirementsInterviewSettings>;
