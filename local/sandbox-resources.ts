import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import {
  applyConfigFile,
  CONFIG_FILE_DIR,
  CONFIG_FILE_VARIABLE,
  CONFIG_FILES_METADATA_KEY,
} from '../lambdas/shared/config-file.ts';
import type { SqsQueueService } from './sqs/queue-service.ts';
import {
  type CloudFormationTemplate,
  LOCAL_ACCOUNT,
  localArn,
  resolveIntrinsics,
  resourcesOfType,
  UnsupportedTemplateError,
} from './template.ts';
import { queueAttributes, type TableSettingsStore, tableSettings } from './template-settings.ts';

/** How the sandbox builds its resources from the template, and serves its Function URLs. */

/** A function of the template, as the sandbox runs it. */
export interface FunctionInfo {
  logicalId: string;
  /** The function's entry file (its `slack-agents:entry` metadata), run in process. */
  entry: string;
  /** The parts its entry's `compose` takes (its `slack-agents:parts` metadata): the Router's modules' additions. */
  parts: readonly string[];
  /** Whether it runs agent turns (`slack-agents:kind`): the console shows the bot thinking. */
  agentTurn: boolean;
  timeoutSeconds: number;
  environment: Record<string, string>;
}

export function readFunctions(
  template: CloudFormationTemplate,
  names: { baseUrl: string },
): Map<string, FunctionInfo> {
  const functions = new Map<string, FunctionInfo>();
  const configFiles = configFilesOf(template);
  for (const [logicalId, resource] of resourcesOfType(template, 'AWS::Lambda::Function')) {
    const entry = resource.Metadata?.['slack-agents:entry'];
    if (typeof entry !== 'string') continue;
    const variables = resolveIntrinsics(
      (resource.Properties?.Environment as { Variables?: never } | undefined)?.Variables ?? {},
      template,
      names,
    ) as Record<string, string>;
    withConfigFile(variables, configFiles);
    functions.set(logicalId, {
      logicalId,
      entry,
      parts: stringsOf(resource.Metadata?.['slack-agents:parts']),
      agentTurn: resource.Metadata?.['slack-agents:kind'] === 'agent_turn',
      timeoutSeconds: Number(resource.Properties?.Timeout ?? 3),
      environment: variables,
    });
  }
  return functions;
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** The configuration layer's files by path, from its metadata (infra/constructs/function-configuration.ts). */
function configFilesOf(template: CloudFormationTemplate): Map<string, string> {
  const files = new Map<string, string>();
  for (const [, layer] of resourcesOfType(template, 'AWS::Lambda::LayerVersion')) {
    const metadata = layer.Metadata?.[CONFIG_FILES_METADATA_KEY];
    if (metadata === undefined || metadata === null || typeof metadata !== 'object') continue;
    for (const [file, variables] of Object.entries(metadata)) {
      files.set(`${CONFIG_FILE_DIR}/${file}`, JSON.stringify(variables));
    }
  }
  return files;
}

/**
 * Reads a function's configuration file into its variables with the loader its bundle runs at
 * cold start (lambdas/shared/config-file.ts), so the in-process handler sees what the deployed
 * one sees; the sandbox serves the file from the layer's metadata instead of /opt.
 */
function withConfigFile(variables: Record<string, string>, files: ReadonlyMap<string, string>): void {
  applyConfigFile(variables, (path) => {
    const text = files.get(path);
    if (text === undefined)
      throw new UnsupportedTemplateError(`no configuration file ${path} in the template`);
    return text;
  });
  delete variables[CONFIG_FILE_VARIABLE];
}

/** The variable mapping tool names to functions (lambdas/shared/env.ts `ENV.toolFunctions`). */
const TOOL_FUNCTIONS = 'TOOL_FUNCTIONS';

/**
 * The handlers share one process, so a variable two functions both set must agree. The tool
 * maps of several agent functions are merged: two workflows may each deploy their own code tools
 * function under the same tool names; in one process such functions run the same entry with the
 * same environment, so either serves the other's calls (in AWS each agent calls its own).
 */
export function mergeEnvironments(functions: Map<string, FunctionInfo>): Record<string, string> {
  const merged: Record<string, string> = {};
  const tools: Record<string, string> = {};
  for (const { logicalId, environment } of functions.values()) {
    for (const [name, value] of Object.entries(environment)) {
      if (name === 'NODE_OPTIONS') continue;
      if (name === TOOL_FUNCTIONS) {
        for (const [tool, target] of Object.entries(JSON.parse(String(value)) as Record<string, string>)) {
          const known = tools[tool];
          if (known !== undefined && functions.get(known)?.entry !== functions.get(target)?.entry)
            throw new UnsupportedTemplateError(
              `${logicalId} serves tool ${tool} with other code than another function`,
            );
          tools[tool] ??= target;
        }
        merged[name] = JSON.stringify(tools);
        continue;
      }
      if (name in merged && merged[name] !== value) {
        throw new UnsupportedTemplateError(`${logicalId} sets ${name} differently from another function`);
      }
      merged[name] = String(value);
    }
  }
  return merged;
}

/**
 * Creates the template's tables in dynalite, with the settings dynalite does not keep (TTL,
 * point-in-time recovery) recorded in `settings`; returns the first table's name.
 */
export async function createTables(
  template: CloudFormationTemplate,
  dynamodb: DynamoDBClient,
  settings?: TableSettingsStore,
  /** A table that exists already (a sandbox that keeps its state) is kept as it is. */
  keepExisting = false,
): Promise<string> {
  let first = '';
  for (const [logicalId, resource] of resourcesOfType(template, 'AWS::DynamoDB::Table')) {
    const p = resource.Properties ?? {};
    const name = typeof p.TableName === 'string' ? p.TableName : logicalId;
    first ||= name;
    // Read before creating: a property the sandbox cannot apply fails the start, not later.
    const kept = tableSettings(logicalId, p as Record<string, unknown>);
    const created = dynamodb.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: p.KeySchema as CreateTableCommandInput['KeySchema'],
        AttributeDefinitions: p.AttributeDefinitions as CreateTableCommandInput['AttributeDefinitions'],
        ...(p.GlobalSecondaryIndexes
          ? {
              GlobalSecondaryIndexes:
                p.GlobalSecondaryIndexes as unknown as CreateTableCommandInput['GlobalSecondaryIndexes'],
            }
          : {}),
        ...(p.LocalSecondaryIndexes
          ? {
              LocalSecondaryIndexes:
                p.LocalSecondaryIndexes as unknown as CreateTableCommandInput['LocalSecondaryIndexes'],
            }
          : {}),
      }),
    );
    await created.catch((error: unknown) => {
      if (!(keepExisting && error instanceof Error && error.name === 'ResourceInUseException')) throw error;
    });
    settings?.set(name, kept);
  }
  return first;
}

/** Creates the template's queues, dead-letter queues first; returns queue ARN -> URL. */
export function createQueues(
  template: CloudFormationTemplate,
  sqs: SqsQueueService,
  names: { baseUrl: string },
): Map<string, string> {
  const urls = new Map<string, string>();
  // The stack's standard queues only keep what asynchronous invocations failed on (Lambda
  // on-failure destinations, an EventBridge target's dead-letter queue), and the sandbox's SQS
  // serves FIFO queues: they are not created here. The sandbox reports a failed asynchronous
  // invocation on its terminal instead (the Lambda emulator's `onEventError`).
  const queues = resourcesOfType(template, 'AWS::SQS::Queue')
    .filter(([, queue]) => queue.Properties?.FifoQueue === true)
    .sort(
      ([, a], [, b]) =>
        Number(a.Properties?.RedrivePolicy !== undefined) - Number(b.Properties?.RedrivePolicy !== undefined),
    );
  for (const [logicalId] of queues) {
    const resolved = resolveIntrinsics(
      template.Resources[logicalId]?.Properties ?? {},
      template,
      names,
    ) as Record<string, unknown>;
    const url = String(resolveIntrinsics({ Ref: logicalId }, template, names));
    // Every setting of the template, as the queue's attributes (a 14-day DLQ retention stays 14 days).
    const attributes = queueAttributes(logicalId, resolved);
    const created = sqs.createQueue({
      QueueName: url.slice(url.lastIndexOf('/') + 1),
      Attributes: attributes,
    });
    urls.set(sqs.queueArn(created.QueueUrl), created.QueueUrl);
  }
  return urls;
}

/**
 * The functions behind the template's Function URLs: the ingress's is the public one (Slack signs
 * its own requests), the history MCP server's requires SigV4 (AWS_IAM), which the sandbox checks
 * itself (local/mcp/history-endpoint.ts).
 */
export function functionUrlTargets(
  template: CloudFormationTemplate,
  names: { baseUrl: string },
): { ingressId: string; historyMcpId?: string } {
  const target = (authType: string) => {
    const url = resourcesOfType(template, 'AWS::Lambda::Url').find(
      ([, resource]) => resource.Properties?.AuthType === authType,
    );
    return (
      url &&
      logicalIdOfArn(String(resolveIntrinsics(url[1].Properties?.TargetFunctionArn ?? null, template, names)))
    );
  };
  const ingressId = target('NONE');
  if (!ingressId) throw new UnsupportedTemplateError('the template has no Function URL for the ingress');
  const historyMcpId = target('AWS_IAM');
  return { ingressId, ...(historyMcpId !== undefined ? { historyMcpId } : {}) };
}

export function logicalIdOfArn(arn: string): string {
  const match = /:function:([^:]+)/.exec(arn);
  return match?.[1] ?? arn;
}

export function lambdaContext(info: { logicalId: string; timeoutSeconds: number }): Context {
  const deadline = Date.now() + info.timeoutSeconds * 1000;
  const fail = () => {
    throw new Error('callback-style Lambda completion is not supported');
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: info.logicalId,
    functionVersion: '$LATEST',
    invokedFunctionArn: localArn('lambda', `function:${info.logicalId}`),
    memoryLimitInMB: '256',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${info.logicalId}`,
    logStreamName: 'sandbox',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: fail,
    fail,
    succeed: fail,
  };
}

/** A request's headers as a Function URL event carries them: names in lower case, repeated values joined. */
export function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
}

/**
 * Serves a Lambda as its Function URL does: the request as an HTTP API v2 event, with the
 * caller a URL with IAM auth names (`authorizer`) when given.
 */
export async function serveFunctionUrl(
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
  invoke: (event: unknown) => Promise<unknown>,
  authorizer?: { iam: Record<string, unknown> },
): Promise<void> {
  const headers = headersOf(req);
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const event = {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: (req.url ?? '').split('?')[1] ?? '',
    headers,
    requestContext: {
      accountId: LOCAL_ACCOUNT,
      apiId: 'sandbox',
      ...(authorizer !== undefined ? { authorizer } : {}),
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'sandbox',
      http: {
        method: req.method ?? 'GET',
        path,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    body,
    isBase64Encoded: false,
  };
  const result = (await invoke(event)) as {
    statusCode?: number;
    headers?: Record<string, string>;
    body?: string;
  } | null;
  res.writeHead(result?.statusCode ?? 200, result?.headers ?? {});
  res.end(result?.body ?? '');
}
