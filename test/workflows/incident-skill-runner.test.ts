import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSkillRunner } from '../../lambdas/workflows/incident-investigation/adapters/skill-runner.ts';
import {
  IncidentInvestigationSettings,
  type Skill,
} from '../../lambdas/workflows/incident-investigation/config.ts';
import { incidentPermissions } from '../../statemachines/incident-investigation/permissions.ts';

/**
 * The skill runner over the wire: the real @aws-sdk/client-ssm and @aws-sdk/client-lambda
 * against a small local server that checks each request as AWS would receive it (SSM's JSON 1.1
 * `X-Amz-Target`, Lambda's `/2015-03-31/functions/{name}/invocations`, a SigV4 signature for the
 * service) and answers in the services' own shapes.
 */

type Seen = {
  target?: string;
  path: string;
  auth: string;
  headers: IncomingMessage['headers'];
  body: unknown;
};

let server: Server;
let endpoint: string;
let seen: Seen[];
let automationPolls: string[];
let lambdaAnswer: { status: number; body: string; functionError?: string };

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const target = req.headers['x-amz-target'] as string | undefined;
      seen.push({
        ...(target ? { target } : {}),
        path: req.url ?? '',
        auth: String(req.headers.authorization ?? ''),
        headers: req.headers,
        body: text ? JSON.parse(text) : undefined,
      });
      if (target === 'AmazonSSM.StartAutomationExecution') {
        if ((JSON.parse(text) as { DocumentName?: string }).DocumentName === 'Ops-Missing')
          return send(res, 400, {
            __type: 'InvalidDocument',
            Message: 'Document Ops-Missing does not exist',
          });
        return send(res, 200, { AutomationExecutionId: 'exec-0123456789abcdef' });
      }
      if (target === 'AmazonSSM.GetAutomationExecution') {
        const status = automationPolls.shift() ?? 'Success';
        return send(res, 200, {
          AutomationExecution: {
            AutomationExecutionId: 'exec-0123456789abcdef',
            AutomationExecutionStatus: status,
            ...(status === 'Failed' ? { FailureMessage: 'Step scale failed: capacity' } : {}),
          },
        });
      }
      if (req.method === 'POST' && /^\/2015-03-31\/functions\/[^/]+\/invocations$/.test(req.url ?? '')) {
        res.writeHead(lambdaAnswer.status, {
          'content-type': 'application/json',
          'x-amz-executed-version': '$LATEST',
          ...(lambdaAnswer.functionError ? { 'x-amz-function-error': lambdaAnswer.functionError } : {}),
        });
        return res.end(lambdaAnswer.body);
      }
      send(res, 400, { __type: 'UnknownOperationException', message: `no ${target ?? req.url}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen = [];
  automationPolls = [];
  lambdaAnswer = { status: 200, body: JSON.stringify({ ok: true, detail: 'restarted 3 tasks' }) };
});

// Generated per run: no key in the repository.
const credentials = {
  accessKeyId: `AKIDTEST${randomBytes(6).toString('hex').toUpperCase()}`,
  secretAccessKey: randomBytes(20).toString('hex'),
};
const AUTOMATION_ROLE = 'arn:aws:iam::123456789012:role/SlackAgents-SkillAutomationRole';
const runner = ({ withAutomationRole = true } = {}) =>
  createSkillRunner({
    lambda: new LambdaClient({ endpoint, region: 'eu-west-1', credentials, maxAttempts: 1 }),
    ssm: new SSMClient({ endpoint, region: 'eu-west-1', credentials, maxAttempts: 1 }),
    demoFunction: undefined,
    automationAssumeRole: withAutomationRole ? AUTOMATION_ROLE : undefined,
    pollMs: 1,
    sleep: async () => {},
  });
const request = {
  conversationId: 'incident_investigation-C1-1',
  step: 0,
  parameters: { service: 'payment-api' },
};

const scale: Skill = {
  name: 'scale',
  description: 'Scales a service',
  target: { type: 'ssm_automation', document: 'Ops-ScaleService', documentVersion: '3', policyArns: [] },
  mutating: true,
};
const RESTART_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:ops-restart';
const restart: Skill = {
  name: 'restart',
  description: 'Restarts a service',
  target: { type: 'lambda', function: RESTART_ARN },
  mutating: true,
};

describe('an SSM Automation skill', () => {
  it('starts the document with its version, list-valued parameters and the Automation role, and waits for Success', async () => {
    automationPolls = ['Pending', 'InProgress', 'Success'];

    const out = await runner().run(scale, 'apply', request);

    expect(out).toEqual({ ok: true, detail: 'Automation exec-0123456789abcdef: Success' });
    const [start, ...polls] = seen;
    expect(start?.target).toBe('AmazonSSM.StartAutomationExecution');
    expect(start?.body).toEqual({
      DocumentName: 'Ops-ScaleService',
      DocumentVersion: '3',
      Parameters: { service: ['payment-api'], AutomationAssumeRole: [AUTOMATION_ROLE] },
    });
    expect(start?.auth).toMatch(
      new RegExp(`^AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/\\d{8}/eu-west-1/ssm/aws4_request`),
    );
    expect(polls.map((p) => [p.target, p.body])).toEqual(
      Array(3).fill(['AmazonSSM.GetAutomationExecution', { AutomationExecutionId: 'exec-0123456789abcdef' }]),
    );
  });

  it('runs the rollback as the same document with Rollback=true, and reports a failed execution with its message', async () => {
    automationPolls = ['Failed'];

    const out = await runner().run(scale, 'rollback', request);

    expect(out).toEqual({
      ok: false,
      detail: 'Automation exec-0123456789abcdef: Failed (Step scale failed: capacity)',
    });
    expect(seen[0]?.body).toMatchObject({ Parameters: { service: ['payment-api'], Rollback: ['true'] } });
  });

  it('keeps a step from naming another Automation role than the stack’s', async () => {
    automationPolls = ['Success'];

    await runner().run(scale, 'apply', {
      ...request,
      parameters: { AutomationAssumeRole: 'arn:aws:iam::1:role/x' },
    });

    expect(seen[0]?.body).toMatchObject({ Parameters: { AutomationAssumeRole: [AUTOMATION_ROLE] } });
  });

  it('refuses to start a document without the Automation role, and calls nothing', async () => {
    await expect(runner({ withAutomationRole: false }).run(scale, 'apply', request)).rejects.toMatchObject({
      name: 'SkillFailedError',
      message: 'skill scale failed: no Automation role is configured to run it',
    });
    expect(seen).toEqual([]);
  });

  it('throws an SSM error that is not the skill’s own (an unknown document), so the task’s retry and Catch decide', async () => {
    const missing: Skill = {
      ...scale,
      target: { type: 'ssm_automation', document: 'Ops-Missing', policyArns: [] },
    };

    await expect(runner().run(missing, 'apply', request)).rejects.toMatchObject({ name: 'InvalidDocument' });
    expect(seen.map((s) => s.target)).toEqual(['AmazonSSM.StartAutomationExecution']);
  });
});

describe('a Lambda skill named by ARN', () => {
  it('invokes the function by its full ARN, RequestResponse, with the skill invocation as payload', async () => {
    const out = await runner().run(restart, 'apply', request);

    expect(out).toEqual({ ok: true, detail: 'restarted 3 tasks' });
    const [call] = seen;
    expect(decodeURIComponent(call?.path ?? '')).toBe(`/2015-03-31/functions/${RESTART_ARN}/invocations`);
    expect(call?.headers['x-amz-invocation-type']).toBe('RequestResponse');
    expect(call?.auth).toMatch(/\/eu-west-1\/lambda\/aws4_request/);
    expect(call?.body).toEqual({
      action: 'apply',
      skill: 'restart',
      conversationId: request.conversationId,
      step: 0,
      parameters: { service: 'payment-api' },
    });
  });

  it('reports a function error as a failed step with its message, not as a thrown error', async () => {
    lambdaAnswer = {
      status: 200,
      functionError: 'Unhandled',
      body: JSON.stringify({ errorType: 'Error', errorMessage: 'ECS refused: service not found' }),
    };

    const out = await runner().run(restart, 'apply', request);

    expect(out).toEqual({ ok: false, detail: 'the function failed: ECS refused: service not found' });
  });

  it('is granted to the runner as exactly that ARN, not rebuilt from the stack account', () => {
    const settings = IncidentInvestigationSettings.parse({
      skills: [{ name: 'restart', description: 'Restarts a service', target: restart.target }],
    });

    expect(incidentPermissions(settings).IncidentRemediation).toEqual([
      { actions: ['lambda:InvokeFunction'], resources: [RESTART_ARN] },
    ]);
  });
});
