import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * CloudFormation in the sandbox, for what the incident tools read: `DescribeStackEvents`, over
 * the query protocol `@aws-sdk/client-cloudformation` speaks (a form-encoded POST with
 * `Action` and `Version=2010-05-15`, an XML answer; errors as `<ErrorResponse>` with HTTP 400),
 * through `AWS_ENDPOINT_URL_CLOUDFORMATION`. Stacks and their events are put in by the sandbox
 * (the demo incident's deployments): nothing here deploys anything. Events come newest first,
 * `pageSize` a page, as the service pages them with `NextToken`.
 */

export const CLOUDFORMATION_VERSION = '2010-05-15';
const XMLNS = `http://cloudformation.amazonaws.com/doc/${CLOUDFORMATION_VERSION}/`;

export interface StackEvent {
  eventId: string;
  logicalResourceId: string;
  physicalResourceId?: string;
  resourceType: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
  resourceStatus: string;
  resourceStatusReason?: string;
  clientRequestToken?: string;
}

interface Stack {
  name: string;
  id: string;
  events: StackEvent[];
}

export class LocalCloudFormation {
  private readonly stacks = new Map<string, Stack>();

  constructor(
    private readonly options: { region: string; account: string; pageSize?: number } = {
      region: 'us-east-1',
      account: '000000000000',
    },
  ) {}

  /** Adds events to a stack (created on first use). */
  addEvents(stackName: string, events: readonly Omit<StackEvent, 'eventId'>[]): void {
    let stack = this.stacks.get(stackName);
    if (stack === undefined) {
      stack = {
        name: stackName,
        id: `arn:aws:cloudformation:${this.options.region}:${this.options.account}:stack/${stackName}/${randomUUID()}`,
        events: [],
      };
      this.stacks.set(stackName, stack);
    }
    for (const event of events) stack.events.push({ ...event, eventId: randomUUID() });
    stack.events.sort((a, b) => b.timestamp - a.timestamp);
  }

  describeStackEvents(stackName: string, nextToken: string | undefined) {
    // StackName may be the name or the stack id (ARN).
    const stack = this.stacks.get(stackName) ?? [...this.stacks.values()].find((s) => s.id === stackName);
    if (stack === undefined)
      throw new CloudFormationApiError('ValidationError', `Stack with id ${stackName} does not exist`);
    const offset =
      nextToken === undefined ? 0 : Number.parseInt(Buffer.from(nextToken, 'base64url').toString(), 10);
    if (!Number.isInteger(offset) || offset < 0)
      throw new CloudFormationApiError('ValidationError', 'Invalid NextToken');
    const size = this.options.pageSize ?? 100;
    const page = stack.events.slice(offset, offset + size);
    const next = offset + page.length;
    return {
      stack,
      page,
      nextToken: next < stack.events.length ? Buffer.from(String(next)).toString('base64url') : undefined,
    };
  }
}

export class CloudFormationApiError extends Error {
  override readonly name = 'CloudFormationApiError';
  constructor(
    readonly code: 'ValidationError' | 'InvalidAction',
    message: string,
  ) {
    super(message);
  }
}

/** Whether a request is CloudFormation's query protocol (the sandbox serves every AWS API on one port). */
export function isCloudFormationRequest(req: IncomingMessage, body: string): boolean {
  const type = String(req.headers['content-type'] ?? '');
  if (req.method !== 'POST' || !type.startsWith('application/x-www-form-urlencoded')) return false;
  const form = new URLSearchParams(body);
  return form.get('Version') === CLOUDFORMATION_VERSION && form.has('Action');
}

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const element = (name: string, value: string | undefined) =>
  value === undefined ? '' : `<${name}>${escapeXml(value)}</${name}>`;

export function createCloudFormationApiHandler(service: LocalCloudFormation) {
  return async (_req: IncomingMessage, res: ServerResponse, body: string): Promise<void> => {
    const form = new URLSearchParams(body);
    const requestId = randomUUID();
    const xml = (status: number, text: string) =>
      res.writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': requestId }).end(text);
    try {
      const action = form.get('Action');
      if (action !== 'DescribeStackEvents')
        throw new CloudFormationApiError(
          'InvalidAction',
          `The sandbox's CloudFormation serves DescribeStackEvents only, not ${action}`,
        );
      const stackName = form.get('StackName');
      if (stackName === null || stackName === '')
        throw new CloudFormationApiError(
          'ValidationError',
          "1 validation error detected: Value null at 'stackName' failed to satisfy constraint: Member must not be null",
        );
      const { stack, page, nextToken } = service.describeStackEvents(
        stackName,
        form.get('NextToken') ?? undefined,
      );
      const members = page
        .map(
          (e) =>
            `<member>${element('StackId', stack.id)}${element('EventId', e.eventId)}${element('StackName', stack.name)}` +
            `${element('LogicalResourceId', e.logicalResourceId)}${element('PhysicalResourceId', e.physicalResourceId)}` +
            `${element('ResourceType', e.resourceType)}${element('Timestamp', new Date(e.timestamp).toISOString())}` +
            `${element('ResourceStatus', e.resourceStatus)}${element('ResourceStatusReason', e.resourceStatusReason)}` +
            `${element('ClientRequestToken', e.clientRequestToken)}</member>`,
        )
        .join('');
      xml(
        200,
        `<DescribeStackEventsResponse xmlns="${XMLNS}"><DescribeStackEventsResult><StackEvents>${members}</StackEvents>` +
          `${element('NextToken', nextToken)}</DescribeStackEventsResult>` +
          `<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></DescribeStackEventsResponse>`,
      );
    } catch (error) {
      if (!(error instanceof CloudFormationApiError)) throw error;
      xml(
        400,
        `<ErrorResponse xmlns="${XMLNS}"><Error><Type>Sender</Type><Code>${error.code}</Code>` +
          `<Message>${escapeXml(error.message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
      );
    }
  };
}
