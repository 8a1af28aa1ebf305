import {
  type CloudFormationClient,
  DescribeStackEventsCommand,
  type StackEvent,
} from '@aws-sdk/client-cloudformation';
import { sourceError } from './cloudwatch-sources.ts';
import type { Deployment, DeploymentsSource, TimeRange } from './sources.ts';

/**
 * Deployments as CloudFormation records them: a stack's update (or creation) is one deployment,
 * from the stack's own `*_IN_PROGRESS` event to its final status, with the resources it changed
 * (a new task definition revision, an updated service) and the reason of any failure.
 *
 * Why CloudFormation and not a deployments API: a platform team that deploys with `cdk deploy`
 * (or any CloudFormation pipeline) already has this record for every service, with no system to
 * add or keep in sync, and read access is one IAM action on the named stacks. A team deploying
 * with something else plugs another `DeploymentsSource` into the same tool.
 */

const FINAL = /_(COMPLETE|FAILED)$/;
const STARTS = new Set([
  'CREATE_IN_PROGRESS',
  'UPDATE_IN_PROGRESS',
  'ROLLBACK_IN_PROGRESS',
  'DELETE_IN_PROGRESS',
]);

export class CloudFormationDeployments implements DeploymentsSource {
  readonly name = 'cloudformation';

  constructor(
    private readonly client: CloudFormationClient,
    /** Events read per stack at most (pages of 100). @default 500 */
    private readonly maxEvents = 500,
  ) {}

  async list(stacks: readonly string[], range: TimeRange): Promise<Deployment[]> {
    const deployments: Deployment[] = [];
    for (const stack of stacks)
      deployments.push(...deploymentsOf(stack, await this.events(stack, range.start), range));
    return deployments.sort((a, b) => b.started - a.started);
  }

  /** The stack's events back to `since` (newest first, as the API pages them). */
  private async events(stack: string, since: number): Promise<StackEvent[]> {
    const events: StackEvent[] = [];
    let nextToken: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new DescribeStackEventsCommand({
            StackName: stack,
            ...(nextToken ? { NextToken: nextToken } : {}),
          }),
        );
        events.push(...(page.StackEvents ?? []));
        nextToken = page.NextToken;
        const oldest = events.at(-1)?.Timestamp?.getTime() ?? Number.POSITIVE_INFINITY;
        if (oldest < since || events.length >= this.maxEvents) nextToken = undefined;
      } while (nextToken !== undefined);
    } catch (error) {
      throw sourceError(`${this.name}:${stack}`, error);
    }
    return events;
  }
}

/** Groups a stack's events (newest first) into deployments that started within the range. */
function deploymentsOf(stack: string, events: readonly StackEvent[], range: TimeRange): Deployment[] {
  const ordered = [...events].sort((a, b) => (a.Timestamp?.getTime() ?? 0) - (b.Timestamp?.getTime() ?? 0));
  const deployments: Deployment[] = [];
  let current: Deployment | undefined;
  for (const event of ordered) {
    const time = event.Timestamp?.getTime() ?? 0;
    const status = event.ResourceStatus ?? 'UNKNOWN';
    const isStack = event.ResourceType === 'AWS::CloudFormation::Stack' && event.LogicalResourceId === stack;
    if (isStack && current === undefined && STARTS.has(status)) {
      current = {
        stack,
        started: time,
        status,
        changes: [],
        ...(event.ResourceStatusReason ? { reason: event.ResourceStatusReason } : {}),
      };
      deployments.push(current);
      continue;
    }
    if (current === undefined) continue;
    if (isStack) {
      current.status = status;
      if (event.ResourceStatusReason) current.reason = event.ResourceStatusReason;
      // `UPDATE_COMPLETE_CLEANUP_IN_PROGRESS` is not final; `UPDATE_COMPLETE` is.
      if (FINAL.test(status) && !status.includes('CLEANUP')) {
        current.finished = time;
        current = undefined;
      }
      continue;
    }
    if (!FINAL.test(status)) continue;
    current.changes.push({
      logicalId: event.LogicalResourceId ?? '?',
      type: event.ResourceType ?? '?',
      status,
      ...(event.PhysicalResourceId ? { physicalId: event.PhysicalResourceId } : {}),
      ...(event.ResourceStatusReason ? { reason: event.ResourceStatusReason } : {}),
    });
  }
  return deployments.filter((d) => d.started >= range.start && d.started <= range.end);
}
