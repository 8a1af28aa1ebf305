import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import { readBody } from '../read-body.ts';
import { toAwsHistory } from './aws-history.ts';
import { StepFunctionsApiError } from './errors.ts';
import type { ExecutionSummary, LocalStepFunctions, StateMachineDescription } from './runtime.ts';

/**
 * The Step Functions JSON protocol (awsJson1_0) over the sandbox runtime, for the calls the
 * code makes, so Lambda code uses the real `@aws-sdk/client-sfn` with `AWS_ENDPOINT_URL_SFN`.
 * Requests are `POST /` with `x-amz-target: AWSStepFunctions.<Operation>`; errors are HTTP 400
 * with `{"__type": "<Code>", "message": ...}`, which the SDK raises as its exception classes.
 * Timestamps travel as epoch seconds.
 */

export const STEP_FUNCTIONS_TARGET_PREFIX = 'AWSStepFunctions.';

/** Handles one request; `body` is the request body when the caller already read it. */
export type StepFunctionsRequestHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  body?: string,
) => Promise<void>;

/** Whether a request is for this API (the sandbox server routes by `x-amz-target`). */
export function isStepFunctionsRequest(req: IncomingMessage): boolean {
  const target = req.headers['x-amz-target'];
  return typeof target === 'string' && target.startsWith(STEP_FUNCTIONS_TARGET_PREFIX);
}

const Arn = z.string().min(1).max(2048);
const Token = z.string().min(1).max(2048);
const Page = { maxResults: z.number().int().min(0).max(1000).optional(), nextToken: z.string().optional() };
const Status = z.enum(['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED']);

const requests = {
  StartExecution: z.object({
    stateMachineArn: Arn,
    name: z.string().optional(),
    input: z.string().optional(),
    traceHeader: z.string().optional(),
  }),
  SendTaskSuccess: z.object({ taskToken: Token, output: z.string() }),
  SendTaskFailure: z.object({
    taskToken: Token,
    error: z.string().max(256).optional(),
    cause: z.string().max(32768).optional(),
  }),
  SendTaskHeartbeat: z.object({ taskToken: Token }),
  DescribeExecution: z.object({ executionArn: Arn }),
  GetExecutionHistory: z.object({
    executionArn: Arn,
    reverseOrder: z.boolean().optional(),
    includeExecutionData: z.boolean().optional(),
    ...Page,
  }),
  ListExecutions: z.object({ stateMachineArn: Arn.optional(), statusFilter: Status.optional(), ...Page }),
  StopExecution: z.object({
    executionArn: Arn,
    error: z.string().max(256).optional(),
    cause: z.string().max(32768).optional(),
  }),
  ListStateMachines: z.object({ ...Page }),
  DescribeStateMachine: z.object({ stateMachineArn: Arn }),
} as const;

type Operation = keyof typeof requests;
type Handlers = { [Op in Operation]: (request: z.infer<(typeof requests)[Op]>) => unknown };

export function createStepFunctionsApi(runtime: LocalStepFunctions): StepFunctionsRequestHandler {
  const handlers: Handlers = {
    StartExecution: ({ stateMachineArn, name, input }) => {
      const started = runtime.startExecution({
        stateMachineArn,
        ...(name !== undefined && { name }),
        ...(input !== undefined && { input }),
      });
      return { executionArn: started.executionArn, startDate: epochSeconds(started.startDate) };
    },
    SendTaskSuccess: ({ taskToken, output }) => {
      runtime.sendTaskSuccess(taskToken, output);
      return {};
    },
    SendTaskFailure: ({ taskToken, error, cause }) => {
      runtime.sendTaskFailure(taskToken, error, cause);
      return {};
    },
    SendTaskHeartbeat: ({ taskToken }) => {
      runtime.sendTaskHeartbeat(taskToken);
      return {};
    },
    DescribeExecution: ({ executionArn }) => executionJson(runtime.describeExecution(executionArn)),
    GetExecutionHistory: ({ executionArn, reverseOrder, includeExecutionData, maxResults, nextToken }) => {
      const execution = runtime.describeExecution(executionArn);
      const machine = runtime.describeStateMachine(execution.stateMachineArn);
      const events = toAwsHistory(runtime.getExecutionHistory(executionArn), {
        region: executionArn.split(':')[3] ?? 'us-east-1',
        roleArn: machine.roleArn,
        ...(includeExecutionData !== undefined && { includeExecutionData }),
      });
      const page = paginate(reverseOrder ? events.reverse() : events, maxResults, nextToken);
      return { events: page.items, ...(page.nextToken !== undefined && { nextToken: page.nextToken }) };
    },
    ListExecutions: ({ stateMachineArn, statusFilter, maxResults, nextToken }) => {
      if (stateMachineArn === undefined) {
        throw new StepFunctionsApiError('ValidationException', 'stateMachineArn is required');
      }
      const executions = runtime.listExecutions({
        stateMachineArn,
        ...(statusFilter !== undefined && { statusFilter }),
      });
      const page = paginate(executions.map(executionJson), maxResults, nextToken);
      return { executions: page.items, ...(page.nextToken !== undefined && { nextToken: page.nextToken }) };
    },
    StopExecution: ({ executionArn, error, cause }) => ({
      stopDate: epochSeconds(runtime.stopExecution(executionArn, error, cause).stopDate),
    }),
    ListStateMachines: ({ maxResults, nextToken }) => {
      const machines = runtime.listStateMachines().map(({ stateMachineArn, name, type, creationDate }) => ({
        stateMachineArn,
        name,
        type,
        creationDate: epochSeconds(creationDate),
      }));
      const page = paginate(machines, maxResults, nextToken);
      return {
        stateMachines: page.items,
        ...(page.nextToken !== undefined && { nextToken: page.nextToken }),
      };
    },
    DescribeStateMachine: ({ stateMachineArn }) =>
      stateMachineJson(runtime.describeStateMachine(stateMachineArn)),
  };

  return async (req, res, body) => {
    try {
      const operation = operationOf(req);
      const text = body ?? (await readBody(req));
      const request = parseRequest(operation, text);
      const result = await (handlers[operation] as (request: unknown) => unknown)(request);
      respond(res, 200, result);
    } catch (error) {
      if (error instanceof StepFunctionsApiError) {
        respond(res, 400, { __type: error.name, message: error.message });
      } else if (error instanceof ProtocolError) {
        respond(res, 400, { __type: error.code, message: error.message });
      } else {
        const message = error instanceof Error ? error.message : String(error);
        respond(res, 500, { __type: 'InternalFailure', message });
      }
    }
  };
}

/** A request the protocol layer refuses before any operation runs. */
class ProtocolError extends Error {
  constructor(
    readonly code: 'UnknownOperationException' | 'SerializationException' | 'ValidationException',
    message: string,
  ) {
    super(message);
    this.name = code;
  }
}

function operationOf(req: IncomingMessage): Operation {
  const target = req.headers['x-amz-target'];
  const operation = typeof target === 'string' ? target.slice(STEP_FUNCTIONS_TARGET_PREFIX.length) : '';
  if (req.method !== 'POST' || !isStepFunctionsRequest(req) || !(operation in requests)) {
    throw new ProtocolError('UnknownOperationException', `Unsupported operation: ${String(target)}`);
  }
  return operation as Operation;
}

function parseRequest(operation: Operation, text: string): unknown {
  let json: unknown;
  try {
    json = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    throw new ProtocolError('SerializationException', error instanceof Error ? error.message : String(error));
  }
  const parsed = requests[operation].safeParse(json);
  if (!parsed.success) {
    const detail = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`,
    );
    throw new ProtocolError('ValidationException', `${operation}: ${detail.join('; ')}`);
  }
  return parsed.data;
}

function executionJson<T extends ExecutionSummary>(execution: T) {
  return {
    ...execution,
    startDate: epochSeconds(execution.startDate),
    ...(execution.stopDate !== undefined && { stopDate: epochSeconds(execution.stopDate) }),
  };
}

function stateMachineJson(machine: StateMachineDescription) {
  return { ...machine, creationDate: epochSeconds(machine.creationDate) };
}

function epochSeconds(date: Date): number {
  return date.getTime() / 1000;
}

const DEFAULT_PAGE_SIZE = 100;

function paginate<T>(
  items: readonly T[],
  maxResults: number | undefined,
  nextToken: string | undefined,
): { items: T[]; nextToken?: string } {
  const size = maxResults || DEFAULT_PAGE_SIZE;
  const start = nextToken === undefined ? 0 : Number(Buffer.from(nextToken, 'base64url').toString());
  if (!Number.isInteger(start) || start < 0) {
    throw new StepFunctionsApiError('ValidationException', 'Invalid nextToken');
  }
  const end = start + size;
  return {
    items: items.slice(start, end),
    ...(end < items.length && { nextToken: Buffer.from(String(end)).toString('base64url') }),
  };
}

function respond(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
  });
  res.end(text);
}
