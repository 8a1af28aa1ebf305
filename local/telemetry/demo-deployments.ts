import type { StackEvent } from '../cloudformation/api.ts';
import { DEMO_SERVICES, type DemoService } from './demo-services.ts';

/**
 * The demo incident's deployments as CloudFormation tells them (`DescribeStackEvents`): each
 * service's last stack update, which replaces its ECS task definition and updates its service.
 * No randomness: the times are the incident's (local/telemetry/demo-incident.ts), the rest fixed.
 */

/** Stack events by stack name. */
export type DemoStackEvents = Record<string, Omit<StackEvent, 'eventId'>[]>;

/** Each service's resources' prefix, and its task definition's revision before the update. */
const DEPLOYED: Readonly<Record<DemoService, { prefix: string; oldRevision: number }>> = {
  'payment-api': { prefix: 'Payment', oldRevision: 41 },
  checkout: { prefix: 'Checkout', oldRevision: 17 },
  'session-cache': { prefix: 'Cache', oldRevision: 3 },
};

/** The stack events of each service's update, finished at the time given. */
export function demoStackEvents(finishedAt: Readonly<Record<DemoService, number>>): DemoStackEvents {
  return Object.fromEntries(
    (Object.keys(DEPLOYED) as DemoService[]).map((service) => {
      const { stack } = DEMO_SERVICES[service];
      const { prefix, oldRevision } = DEPLOYED[service];
      return [stack, deploymentEvents(stack, finishedAt[service], prefix, service, oldRevision)];
    }),
  );
}

/** A CloudFormation update that replaces an ECS task definition and updates the service, finishing at `finishedAt`. */
function deploymentEvents(
  stack: string,
  finishedAt: number,
  prefix: string,
  family: string,
  oldRevision: number,
): Omit<StackEvent, 'eventId'>[] {
  const td = (revision: number) => `arn:aws:ecs:us-east-1:000000000000:task-definition/${family}:${revision}`;
  const at = (secondsBefore: number) => finishedAt - secondsBefore * 1000;
  const stackEvent = (t: number, resourceStatus: string, reason?: string) => ({
    logicalResourceId: stack,
    physicalResourceId: `arn:aws:cloudformation:us-east-1:000000000000:stack/${stack}/demo`,
    resourceType: 'AWS::CloudFormation::Stack',
    timestamp: t,
    resourceStatus,
    ...(reason ? { resourceStatusReason: reason } : {}),
  });
  const resource = (
    t: number,
    logicalResourceId: string,
    resourceType: string,
    resourceStatus: string,
    physicalResourceId: string,
  ) => ({
    logicalResourceId,
    resourceType,
    timestamp: t,
    resourceStatus,
    physicalResourceId,
  });
  const service = `arn:aws:ecs:us-east-1:000000000000:service/prod/${family}`;
  return [
    stackEvent(at(240), 'UPDATE_IN_PROGRESS', 'User Initiated'),
    resource(
      at(230),
      `${prefix}TaskDefinition`,
      'AWS::ECS::TaskDefinition',
      'UPDATE_IN_PROGRESS',
      td(oldRevision),
    ),
    resource(
      at(228),
      `${prefix}TaskDefinition`,
      'AWS::ECS::TaskDefinition',
      'UPDATE_COMPLETE',
      td(oldRevision + 1),
    ),
    resource(at(225), `${prefix}Service`, 'AWS::ECS::Service', 'UPDATE_IN_PROGRESS', service),
    resource(at(0), `${prefix}Service`, 'AWS::ECS::Service', 'UPDATE_COMPLETE', service),
    stackEvent(at(-5), 'UPDATE_COMPLETE_CLEANUP_IN_PROGRESS'),
    resource(
      at(-8),
      `${prefix}TaskDefinition`,
      'AWS::ECS::TaskDefinition',
      'DELETE_COMPLETE',
      td(oldRevision),
    ),
    stackEvent(at(-10), 'UPDATE_COMPLETE'),
  ];
}
