import type { IncidentInvestigationSettings } from '../../lambdas/workflows/incident-investigation/config.ts';
import type { ModulePermission } from '../workflow-module.ts';
import type { IncidentFunctionId } from './functions.ts';

/**
 * What the skill runner may call, from the configured skills: `lambda:InvokeFunction` on each
 * Lambda skill (a name is a function of the stack's account and region), and SSM Automation on
 * each document (start it, and read the executions it starts).
 */
export function incidentPermissions(
  settings: IncidentInvestigationSettings,
): Partial<Record<IncidentFunctionId, readonly ModulePermission[]>> {
  const functions = settings.skills.flatMap((s) => (s.target.type === 'lambda' ? [s.target.function] : []));
  const documents = settings.skills.flatMap((s) =>
    s.target.type === 'ssm_automation' ? [s.target.document] : [],
  );
  const permissions: ModulePermission[] = [];
  if (functions.length > 0) {
    permissions.push({
      actions: ['lambda:InvokeFunction'],
      resources: functions.map((f) =>
        f.startsWith('arn:')
          ? f
          : { service: 'lambda', resource: 'function', resourceName: f, separator: ':' as const },
      ),
    });
  }
  if (documents.length > 0) {
    permissions.push({
      actions: ['ssm:StartAutomationExecution'],
      wildcardReason:
        'the versions of each configured Automation document (document:version); no other document',
      resources: documents.map((d) =>
        d.startsWith('arn:')
          ? d
          : {
              service: 'ssm',
              resource: 'automation-definition',
              resourceName: `${d}:*`,
              separator: '/' as const,
            },
      ),
    });
    permissions.push({
      actions: ['ssm:GetAutomationExecution'],
      wildcardReason:
        'SSM assigns an execution its id when it starts, so no id can be named ahead; the runner reads only the executions it started',
      resources: [{ service: 'ssm', resource: 'automation-execution', resourceName: '*', separator: '/' }],
    });
  }
  return permissions.length > 0 ? { IncidentRemediation: permissions } : {};
}
