import type { HistoryEvent } from './history.ts';

/**
 * The runtime's history in the shape of GetExecutionHistory: one AWS event per runtime event,
 * named by state type (`TaskStateEntered`, `ChoiceStateExited`, ...). Library-only events with no
 * AWS counterpart (state retried/caught, parallel branch started...) are left out: the real
 * service shows a retry as a new TaskScheduled and a catch as the state's exit.
 */

export interface AwsHistoryEvent {
  readonly id: number;
  readonly previousEventId: number;
  /** Epoch seconds, as the JSON protocol carries timestamps. */
  readonly timestamp: number;
  readonly type: string;
  readonly [details: string]: unknown;
}

export interface AwsHistoryOptions {
  /** Whether inputs and outputs are included. @default true */
  readonly includeExecutionData?: boolean;
  readonly region: string;
  readonly roleArn: string;
}

const LAMBDA_FUNCTION_ARN = /^arn:[^:]+:lambda:/;
const OPTIMIZED_INTEGRATION = /^arn:[^:]+:states:::([^:]+):(.+)$/;

export function toAwsHistory(events: readonly HistoryEvent[], options: AwsHistoryOptions): AwsHistoryEvent[] {
  const aws: AwsHistoryEvent[] = [];
  for (const event of events) {
    const mapped = toAwsEvent(event, options);
    if (!mapped) continue;
    const id = aws.length + 1;
    aws.push({ id, previousEventId: id - 1, timestamp: event.timestamp.getTime() / 1000, ...mapped });
  }
  return aws;
}

type Mapped = { type: string; [details: string]: unknown };

function toAwsEvent(event: HistoryEvent, options: AwsHistoryOptions): Mapped | undefined {
  const data = options.includeExecutionData ?? true;
  const input = data ? { input: json(event.input), inputDetails: { truncated: false } } : {};
  const output = data ? { output: json(event.output), outputDetails: { truncated: false } } : {};
  const failure = { error: event.error, cause: event.cause };
  const name = event.stateName ?? '';
  switch (event.type) {
    case 'ExecutionStarted':
      return { type: event.type, executionStartedEventDetails: { ...input, roleArn: options.roleArn } };
    case 'ExecutionSucceeded':
      return { type: event.type, executionSucceededEventDetails: output };
    case 'ExecutionFailed':
      return { type: event.type, executionFailedEventDetails: failure };
    case 'ExecutionAborted':
      return { type: event.type, executionAbortedEventDetails: failure };
    case 'ExecutionTimedOut':
      return { type: event.type, executionTimedOutEventDetails: failure };
    case 'StateEntered':
      return { type: `${event.stateType}StateEntered`, stateEnteredEventDetails: { name, ...input } };
    case 'StateExited':
      return { type: `${event.stateType}StateExited`, stateExitedEventDetails: { name, ...output } };
    case 'StateFailed':
      return event.stateType === 'Map' || event.stateType === 'Parallel'
        ? { type: `${event.stateType}StateFailed` }
        : undefined;
    case 'MapIterationStarted':
    case 'MapIterationSucceeded':
    case 'MapIterationFailed': {
      const key = `${event.type[0]?.toLowerCase()}${event.type.slice(1)}EventDetails`;
      return { type: event.type, [key]: { name, index: event.index } };
    }
    case 'TaskScheduled':
    case 'TaskStarted':
    case 'TaskSubmitted':
    case 'TaskSucceeded':
    case 'TaskFailed':
    case 'TaskTimedOut':
      return taskEvent(event, options, { output, failure });
    default:
      return undefined;
  }
}

function taskEvent(
  event: HistoryEvent,
  options: AwsHistoryOptions,
  parts: { output: object; failure: object },
): Mapped {
  const resource = event.resource ?? '';
  const data = options.includeExecutionData ?? true;
  const timeouts = {
    ...(event.timeoutSeconds !== undefined && { timeoutInSeconds: event.timeoutSeconds }),
    ...(event.heartbeatSeconds !== undefined && { heartbeatInSeconds: event.heartbeatSeconds }),
  };
  if (LAMBDA_FUNCTION_ARN.test(resource)) {
    // A Task on a plain Lambda ARN shows as LambdaFunction* events in the real service.
    const type = event.type.replace('Task', 'LambdaFunction');
    switch (event.type) {
      case 'TaskScheduled':
        return {
          type,
          lambdaFunctionScheduledEventDetails: {
            resource,
            ...(data && { input: json(event.parameters), inputDetails: { truncated: false } }),
            ...timeouts,
          },
        };
      case 'TaskSucceeded':
        return { type, lambdaFunctionSucceededEventDetails: parts.output };
      case 'TaskFailed':
        return { type, lambdaFunctionFailedEventDetails: parts.failure };
      case 'TaskTimedOut':
        return { type, lambdaFunctionTimedOutEventDetails: parts.failure };
      default:
        return { type };
    }
  }
  const [, resourceType = resource, action = ''] = OPTIMIZED_INTEGRATION.exec(resource) ?? [];
  const base = { resourceType, resource: action };
  const key = `${event.type[0]?.toLowerCase()}${event.type.slice(1)}EventDetails`;
  switch (event.type) {
    case 'TaskScheduled':
      return {
        type: event.type,
        [key]: {
          ...base,
          region: options.region,
          ...(data && { parameters: json(event.parameters) }),
          ...timeouts,
        },
      };
    case 'TaskSubmitted':
    case 'TaskSucceeded':
      return { type: event.type, [key]: { ...base, ...parts.output } };
    case 'TaskFailed':
    case 'TaskTimedOut':
      return { type: event.type, [key]: { ...base, ...parts.failure } };
    default:
      return { type: event.type, [key]: base };
  }
}

function json(value: unknown): string {
  return JSON.stringify(value ?? null);
}
