import { PROTECTED_PATHS_ENV } from '../../lambdas/changes/config.ts';
import { CODE_TOOLS_ENV } from '../../lambdas/tools/code/config.ts';
import { BUG_ANSWER_KINDS } from '../../lambdas/workflows/bug-investigation/answer-kinds.ts';
import type { BugInvestigationSettings } from '../../lambdas/workflows/bug-investigation/config.ts';
import { REQUEST_FIX } from '../../lambdas/workflows/bug-investigation/fix/fix-request.ts';
import { repositoryPreflight } from '../module-preflight.ts';
import { defineWorkflowModule } from '../workflow-module.ts';
import { PROTECTED_FIX_DECISION } from './fix-guards.ts';
import { BUG_FUNCTIONS, type BugFunctionId } from './functions.ts';
import { BUG_INVESTIGATION_SANDBOX } from './sandbox.ts';
import { BUG_INVESTIGATION } from './workflow.ts';

/**
 * Bug investigation with its SLA-tracking child: a top-level message in the
 * bug-reports channel starts one; findings go to the bug-summaries channel, escalations to
 * the developers' channel, mentioning the on-call group.
 */
export const BUG_INVESTIGATION_MODULE = defineWorkflowModule<BugFunctionId, BugInvestigationSettings>({
  // Its name, configuration section and demo agents (sandbox.ts; `workflows` is replaced below).
  ...BUG_INVESTIGATION_SANDBOX,
  answerKinds: BUG_ANSWER_KINDS,
  channels: {
    /** A top-level message here starts an investigation (placeholder id). */
    bugReports: 'C_BUG_REPORTS',
    /** Where findings are posted for developers (placeholder id). */
    bugSummaries: 'C_BUG_SUMMARIES',
    /** Where escalations go (placeholder id). */
    developers: 'C_DEVELOPERS',
  },
  // `participant`: someone writing in a developers' thread who is neither developer nor on call.
  roles: ['reporter', 'developer', 'on_call', 'participant'],
  people: {
    /** Developers: they may ask for a fix (placeholder group id). */
    developer: { groups: ['S_DEVELOPERS'] },
    /** On call: escalations mention their group, and they acknowledge them (placeholder group id). */
    on_call: { groups: ['S_ONCALL'] },
  },
  // The escalation's Acknowledge button (sla-tracking.ts): on call may press it. The findings'
  // "Fix it" (fix-path.ts): developers may press it. A fix touching a protected path
  // (fix-path.ts): developers may approve it by default.
  decisions: {
    acknowledge_escalation: ['on_call'],
    [REQUEST_FIX]: ['developer'],
    [PROTECTED_FIX_DECISION]: ['developer'],
  },
  statuses: ['pending_verification'],
  functions: BUG_FUNCTIONS,
  // The code tools' and the pull request opener's repository; none: no code tools.
  // Without a repository: no code tools, no fix path, nothing of GitHub or CodeBuild deployed.
  disabledFunctions: (settings) =>
    settings.repository === undefined
      ? [
          'BugCodeTools',
          'CheckFixRequest',
          'ReadBuildResults',
          'OpenPullRequest',
          'DefineChecks',
          'CheckProtectedChanges',
        ]
      : [],
  environment: (settings, kernel) =>
    settings.repository === undefined
      ? {}
      : {
          [CODE_TOOLS_ENV.repository]: settings.repository,
          [PROTECTED_PATHS_ENV]: JSON.stringify(kernel.protectedPaths ?? {}),
        },
  enabled: (settings) => settings.enabled,
  // The investigator reads the repository, the fixer changes it, and the checks build clones it.
  preflight: (settings) => repositoryPreflight(settings.repository),
  workflows: [BUG_INVESTIGATION],
});
