import type { LambdaFunctionURLEventWithIAMAuthorizer } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { HistoryReader } from '../../lambdas/history-mcp/config.ts';
import { serveHistoryMcp } from '../../lambdas/history-mcp/function-url.ts';
import { type Caller, readableWorkflows } from '../../lambdas/history-mcp/principal.ts';
import type { HistoryServerDeps } from '../../lambdas/history-mcp/server.ts';
import type { StoredMessage } from '../../lambdas/kernel/model.ts';
import { DEFAULT_REDACTION } from '../../lambdas/redaction/config.ts';
import { bugConversation } from '../support/conversations.ts';

/** The history MCP server's one tool, as clients call it (stated here, not imported: the value is what this test checks). */
const HISTORY_MCP_TOOL = 'get_conversation_history';

/** One audit entry, as the history server hands it to its deps. */
type HistoryAudit = Parameters<HistoryServerDeps['audit']>[0];

/**
 * The history MCP server's handler, driven with the events a Function URL with IAM auth sends:
 * who a configured principal names, what a read returns and what the log keeps of it.
 */

const ACCOUNT = '123456789012';
const session = (role: string, account = ACCOUNT): Caller => ({
  userArn: `arn:aws:sts::${account}:assumed-role/${role}/alice`,
  accountId: account,
});

describe('which callers a configured principal names', () => {
  it.each([
    ['a role ARN, its sessions', `arn:aws:iam::${ACCOUNT}:role/oncall`, session('oncall'), true],
    [
      'a role ARN with a path, its sessions',
      `arn:aws:iam::${ACCOUNT}:role/teams/oncall`,
      session('oncall'),
      true,
    ],
    [
      'a role ARN, not a session of another role',
      `arn:aws:iam::${ACCOUNT}:role/oncall`,
      session('oncall-admin'),
      false,
    ],
    [
      'a role ARN, not a session of the same name in another account',
      `arn:aws:iam::${ACCOUNT}:role/oncall`,
      session('oncall', '210987654321'),
      false,
    ],
    [
      'a user ARN, that user',
      `arn:aws:iam::${ACCOUNT}:user/ops/bob`,
      { userArn: `arn:aws:iam::${ACCOUNT}:user/ops/bob`, accountId: ACCOUNT },
      true,
    ],
    [
      'a user ARN, not a role session of its name',
      `arn:aws:iam::${ACCOUNT}:user/oncall`,
      session('oncall'),
      false,
    ],
    ['an account, any principal of it', ACCOUNT, session('anything'), true],
    ['an account, not another one', ACCOUNT, session('oncall', '210987654321'), false],
  ])('%s', (_, principal, caller, names) => {
    // The caller reads the workflows of an entry whose principal names it, and nothing otherwise.
    const readers: HistoryReader[] = [{ principal, workflows: ['incident_investigation'] }];
    expect(readableWorkflows(readers, caller)).toEqual(
      names ? new Set(['incident_investigation']) : undefined,
    );
  });
});

const READERS: HistoryReader[] = [
  { principal: `arn:aws:iam::${ACCOUNT}:role/oncall`, workflows: ['incident_investigation'] },
];
const CARD = '4111 1111 1111 1111';
const MESSAGE: StoredMessage = {
  conversationId: 'inc-1',
  ts: '1732190000.000100',
  channel: 'C_INCIDENTS',
  senderType: 'reporter',
  senderId: 'U_RESPONDER',
  messageType: 'message',
  text: `the customer paid with ${CARD} and got a 502`,
  receivedAt: '2024-11-21T11:53:20.000Z',
};

function fixture() {
  const audit: HistoryAudit[] = [];
  const deps = {
    readers: READERS,
    redaction: DEFAULT_REDACTION,
    audit: (entry: HistoryAudit) => audit.push(entry),
    store: {
      getConversation: async (id: string) =>
        id === 'inc-1' ? bugConversation(id, { workflow: 'incident_investigation' }) : undefined,
      listMessages: async (id: string) => (id === 'inc-1' ? [MESSAGE] : []),
    },
  };
  return { audit, deps };
}

function event(caller: Caller, method: string, body: unknown): LambdaFunctionURLEventWithIAMAuthorizer {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/',
    rawQueryString: '',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    requestContext: {
      accountId: caller.accountId,
      apiId: 'history',
      authorizer: {
        iam: {
          accessKey: 'ASIA-TEST',
          accountId: caller.accountId,
          callerId: 'AROA-TEST:alice',
          cognitoIdentity: null,
          principalOrgId: '',
          userArn: caller.userArn,
          userId: 'AROA-TEST:alice',
        },
      },
      domainName: 'history.lambda-url.eu-west-1.on.aws',
      domainPrefix: 'history',
      http: { method, path: '/', protocol: 'HTTP/1.1', sourceIp: '192.0.2.1', userAgent: 'test' },
      requestId: 'r-1',
      routeKey: '$default',
      stage: '$default',
      time: '21/Nov/2024:11:53:20 +0000',
      timeEpoch: 1_732_190_000_000,
    },
    body: JSON.stringify(body),
    isBase64Encoded: false,
  };
}

const call = (conversationId: string) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: HISTORY_MCP_TOOL, arguments: { conversation_id: conversationId } },
});

describe('a read through the Function URL', () => {
  it('returns the page through the redaction layer and logs who read which conversation, without its text', async () => {
    const { audit, deps } = fixture();
    const response = await serveHistoryMcp(event(session('oncall'), 'POST', call('inc-1')), deps);
    const text = (JSON.parse(String(response.body)) as { result: { content: { text: string }[] } }).result
      .content[0]?.text;
    expect(response.statusCode).toBe(200);
    expect(text).toContain('got a 502');
    expect(text).not.toContain(CARD);
    expect(text).toMatch(/<pii:card#[0-9a-f]{4}>/);
    expect(audit).toEqual([
      {
        caller: `arn:aws:sts::${ACCOUNT}:assumed-role/oncall/alice`,
        callerId: 'AROA-TEST:alice',
        conversationId: 'inc-1',
        outcome: 'allowed',
        workflow: 'incident_investigation',
        messages: 1,
      },
    ]);
  });

  it('logs a refused caller with the conversation it asked for, and answers 403 with a JSON-RPC error', async () => {
    const { audit, deps } = fixture();
    const response = await serveHistoryMcp(event(session('intruder'), 'POST', call('inc-1')), deps);
    expect(response.statusCode).toBe(403);
    expect(JSON.parse(String(response.body))).toMatchObject({ error: { code: -32001 } });
    expect(audit).toEqual([
      expect.objectContaining({ conversationId: 'inc-1', outcome: 'refused', reason: 'no reader entry' }),
    ]);
  });

  it('tells the caller a store failure by its kind only, and logs it as failed', async () => {
    const { audit, deps } = fixture();
    const failing = {
      ...deps,
      store: {
        ...deps.store,
        getConversation: async () => {
          throw Object.assign(
            new Error('table arn:aws:dynamodb:eu-west-1:123456789012:table/Conv is throttled'),
            {
              name: 'ProvisionedThroughputExceededException',
            },
          );
        },
      },
    };
    const response = await serveHistoryMcp(event(session('oncall'), 'POST', call('inc-1')), failing);
    const result = (
      JSON.parse(String(response.body)) as { result: { isError: boolean; content: { text: string }[] } }
    ).result;
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toBe(
      'Reading the history of "inc-1" failed (ProvisionedThroughputExceededException); try again.',
    );
    expect(audit).toEqual([
      expect.objectContaining({
        conversationId: 'inc-1',
        outcome: 'failed',
        reason: 'ProvisionedThroughputExceededException',
      }),
    ]);
  });

  it('answers GET with 405, since a stateless server opens no stream', async () => {
    const { deps } = fixture();
    const response = await serveHistoryMcp(event(session('oncall'), 'GET', ''), deps);
    expect(response).toMatchObject({ statusCode: 405, headers: { allow: 'POST' } });
  });
});
