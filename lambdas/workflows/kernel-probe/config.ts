import * as z from 'zod';

/**
 * The probe's configuration section (`slackAgents.kernelProbe`): the slash command its agent
 * answers, and a repository it names for the preflight (the probe reads none of its code).
 */
export const KernelProbeSettings = z.object({
  /** The slash command that asks the probe's agent. @default "/probe" */
  command: z
    .string()
    .regex(/^\/[a-z0-9_-]{1,31}$/, 'expected a slash command, e.g. /probe')
    .default('/probe'),
  /**
   * A repository the probe names as its own, `owner/name`: the deploy then needs what a
   * repository needs (GitHub credentials, the webhook), as the preflight lists.
   * @default - none
   */
  repository: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'expected owner/name')
    .optional(),
});
export type KernelProbeSettings = z.infer<typeof KernelProbeSettings>;
