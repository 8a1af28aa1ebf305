import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { LambdaFunctionURLEventWithIAMAuthorizer } from 'aws-lambda';
import type { HistoryReader } from './config.ts';
import { type Caller, readableWorkflows } from './principal.ts';
import { createHistoryServer, type HistoryServerDeps } from './server.ts';

/**
 * The history MCP server behind a Lambda Function URL with `AuthType: AWS_IAM`: Lambda has
 * checked the request's SigV4 signature and names the caller in `requestContext.authorizer.iam`;
 * this decides what that caller may read. Streamable HTTP, stateless: every POST gets a fresh
 * server and transport, no session id, and a JSON answer.
 */

export interface HistoryMcpDeps extends HistoryServerDeps {
  readers: readonly HistoryReader[];
}

/** What the Function URL answers: always a structured response. */
export interface FunctionUrlResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** JSON-RPC's code for a request the server refuses (the implementation-defined server error range). */
const REFUSED = -32001;

export async function serveHistoryMcp(
  event: LambdaFunctionURLEventWithIAMAuthorizer,
  deps: HistoryMcpDeps,
): Promise<FunctionUrlResponse> {
  const iam = event.requestContext.authorizer?.iam;
  const conversationId = requestedConversation(event);
  if (iam === undefined || !iam.userArn) {
    // Only a URL deployed without IAM auth gets here: nobody is named, so nobody may read.
    deps.audit({ caller: 'unknown', ...conversationId, outcome: 'refused', reason: 'no IAM caller' });
    return refusal('the request names no IAM caller: sign it with SigV4 (service lambda)');
  }
  const caller: Caller = {
    userArn: iam.userArn,
    accountId: iam.accountId,
    ...(iam.callerId ? { callerId: iam.callerId } : {}),
  };
  const workflows = readableWorkflows(deps.readers, caller);
  if (workflows === undefined) {
    deps.audit({
      caller: caller.userArn,
      ...(caller.callerId !== undefined ? { callerId: caller.callerId } : {}),
      ...conversationId,
      outcome: 'refused',
      reason: 'no reader entry',
    });
    return refusal(`${caller.userArn} may not read conversation histories here`);
  }
  // GET would open a stream a Lambda cannot hold, and a stateless server has no session to DELETE.
  if (event.requestContext.http.method !== 'POST')
    return { statusCode: 405, headers: { allow: 'POST' }, body: '' };

  const server = createHistoryServer(caller, workflows, deps);
  // No session id generator: stateless, as a Lambda that keeps nothing between requests must be.
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(webRequest(event));
    return {
      statusCode: response.status,
      headers: Object.fromEntries(response.headers.entries()),
      body: await response.text(),
    };
  } finally {
    await transport.close();
    await server.close();
  }
}

function refusal(message: string): FunctionUrlResponse {
  return {
    statusCode: 403,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: REFUSED, message } }),
  };
}

function bodyOf(event: LambdaFunctionURLEventWithIAMAuthorizer): string | undefined {
  if (event.body === undefined) return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

function webRequest(event: LambdaFunctionURLEventWithIAMAuthorizer): Request {
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {}))
    if (value !== undefined) headers.set(name, value);
  const body = bodyOf(event);
  return new Request(`https://${event.requestContext.domainName}${event.rawPath}${query}`, {
    method: event.requestContext.http.method,
    headers,
    ...(body !== undefined ? { body } : {}),
  });
}

/** The conversation a refused `tools/call` asked for, for the log; nothing when the body says none. */
function requestedConversation(event: LambdaFunctionURLEventWithIAMAuthorizer): { conversationId?: string } {
  try {
    const message = JSON.parse(bodyOf(event) ?? '') as {
      params?: { arguments?: { conversation_id?: unknown } };
    };
    const id = message.params?.arguments?.conversation_id;
    return typeof id === 'string' ? { conversationId: id.slice(0, 256) } : {};
  } catch {
    return {};
  }
}
