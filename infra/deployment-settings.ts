import * as z from 'zod';
import type { AliasDeployment } from './constructs/workflow-version.ts';

/**
 * How a deploy moves each workflow's alias (where new conversations start) to the state
 * machine version it publishes: at once, or gradually with CloudWatch alarms that roll the
 * alias back. Conversations already running are never moved: each keeps the version it started
 * on (docs/operations.md, "Upgrading and rolling back"). The bounds are CloudFormation's for
 * `AWS::StepFunctions::StateMachineAlias` `DeploymentPreference`.
 */
export const DeploymentSettingsSchema = z
  .strictObject({
    /**
     * `all_at_once`: new conversations start on the new version as soon as it is published.
     * `canary`: `percent` of them for `intervalMinutes`, then all. `linear`: `percent` more every
     * `intervalMinutes` until all.
     * @default 'all_at_once'
     */
    strategy: z.enum(['all_at_once', 'canary', 'linear']).default('all_at_once'),
    /**
     * Percent of new conversations started on the new version at each step (canary, linear).
     * @default - required for canary and linear
     */
    percent: z.number().int().min(1).max(99).optional(),
    /**
     * Minutes between steps (canary, linear).
     * @default - required for canary and linear
     */
    intervalMinutes: z.number().int().min(1).max(2100).optional(),
    /**
     * Names (not ARNs) of CloudWatch alarms watched during the shift: one in ALARM rolls the
     * alias back to the previous version. CloudWatch counts an alarm that does not exist as OK,
     * so a misspelled name never rolls back: check the names.
     * @default []
     */
    alarms: z.array(z.string().min(1).max(255)).max(100).default([]),
  })
  .superRefine((settings, context) => {
    const gradual = settings.strategy !== 'all_at_once';
    for (const key of ['percent', 'intervalMinutes'] as const) {
      if (gradual && settings[key] === undefined) {
        context.addIssue({ code: 'custom', path: [key], message: `${settings.strategy} needs ${key}` });
      }
      if (!gradual && settings[key] !== undefined) {
        context.addIssue({
          code: 'custom',
          path: [key],
          message: `all_at_once moves every new conversation at once: ${key} would do nothing (choose canary or linear)`,
        });
      }
    }
    if (!gradual && settings.alarms.length > 0) {
      context.addIssue({
        code: 'custom',
        path: ['alarms'],
        message: 'all_at_once has no shift to roll back: alarms would do nothing (choose canary or linear)',
      });
    }
  });
export type DeploymentSettings = z.infer<typeof DeploymentSettingsSchema>;

/** The settings as the alias's deployment preference. */
export function aliasDeployment(settings: DeploymentSettings): AliasDeployment {
  const type = ({ all_at_once: 'ALL_AT_ONCE', canary: 'CANARY', linear: 'LINEAR' } as const)[
    settings.strategy
  ];
  return {
    type,
    ...(settings.percent === undefined ? {} : { percentage: settings.percent }),
    ...(settings.intervalMinutes === undefined ? {} : { intervalMinutes: settings.intervalMinutes }),
    alarmNames: settings.alarms,
  };
}
