import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { withDemoTelemetry } from '../../local/telemetry/demo-services.ts';
import { resourcesOfType } from '../../local/template.ts';
import { sandboxTemplate } from '../../local/template-cache.ts';
import { installTerminalLog, parseLogFormat } from '../../local/terminal-log.ts';
import { WORKFLOW_MODULES } from '../../statemachines/index.ts';
import { eventually } from '../support/eventually.ts';
import { workerSandbox } from '../support/sandbox.ts';

/**
 * the sandbox at its default log level and format (as `npm run
 * dev` runs it) prints one line per log record, and shows at WARN a failed agent turn, a
 * Lambda that threw, and a message arriving in a dead-letter queue.
 */

let sandbox: Sandbox;
let model: Server;
let uninstall: () => void;
const lines: string[] = [];

/** A model API that refuses every request as invalid: the agent turn fails and escalates. */
async function refusingModel(): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(400, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'refused by the test' },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

beforeAll(async () => {
  // What reaches the terminal: the console's methods, behind the sandbox's one-line format.
  for (const method of ['debug', 'info', 'warn', 'error', 'log'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(' '));
    });
  }
  uninstall = installTerminalLog({ format: parseLogFormat(undefined) });
  model = await refusingModel();
  sandbox = await workerSandbox({
    timeScale: 0.001,
    logLevel: 'INFO',
    env: {
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${(model.address() as AddressInfo).port}`,
      ANTHROPIC_API_KEY: 'test-key',
      MODEL_MAX_RETRIES: '0',
    },
  });
});

afterAll(async () => {
  await sandbox?.stop();
  await new Promise<void>((resolve) => (model ? model.close(() => resolve()) : resolve()));
  uninstall?.();
  vi.restoreAllMocks();
});

async function until(what: string, accept: () => boolean, seconds = 45): Promise<void> {
  await eventually(
    () => accept() || lines.join('\n'),
    (seen) => seen === true,
    what,
    seconds * 1000,
  );
}

const warnings = () => lines.filter((l) => /^\d{2}:\d{2}:\d{2}\.\d{3} WARN /.test(l));

describe('the sandbox terminal at the default level', () => {
  it('shows a failed agent turn at WARN, on one line', async () => {
    const workspace = sandbox.slack.workspace;
    const reports = workspace.channels().find((c) => c.name === 'bug-reports');
    if (!reports) throw new Error('no #bug-reports');
    workspace.postAsUser({ channel: reports.id, user: 'U_REPORTER', text: 'checkout is broken' });
    await until('a failed agent turn', () =>
      warnings().some((l) => l.includes('agent turn failed: escalating')),
    );
    const line = warnings().find((l) => l.includes('agent turn failed: escalating')) ?? '';
    expect(line).toMatch(/error=".*refused by the test/);
  });

  it('shows a Lambda that threw at WARN, naming it', async () => {
    // The template the sandbox runs (its default configuration), from the cache it was just kept in.
    const { template } = await sandboxTemplate({ config: withDemoTelemetry({}, WORKFLOW_MODULES) });
    const drain = resourcesOfType(template, 'AWS::Lambda::Function').find(
      ([, r]) => r.Metadata?.['slack-agents:entry'] === 'lambdas/handlers/drain.ts',
    )?.[0];
    if (!drain) throw new Error('no Drain function in the template');
    const lambda = new LambdaClient({
      endpoint: sandbox.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'sandbox', secretAccessKey: 'sandbox' },
    });
    const result = await lambda.send(
      new InvokeCommand({ FunctionName: drain, Payload: '{"not":"a drain input"}' }),
    );
    expect(result.FunctionError).toBe('Unhandled');
    await until('the Lambda failure', () => warnings().some((l) => l.includes(`Lambda ${drain} failed`)));
  });

  it('shows a message arriving in a dead-letter queue at WARN', async () => {
    const queues = sandbox.sqs.listQueues({}).QueueUrls ?? [];
    const deadLetters = queues.find((url) => /InboxDeadLetters/.test(url));
    if (!deadLetters) throw new Error(`no inbox dead-letter queue in ${queues.join(', ')}`);
    sandbox.sqs.sendMessage({
      QueueUrl: deadLetters,
      MessageBody: '{}',
      MessageGroupId: 'g',
      MessageDeduplicationId: 'terminal-test',
    });
    await until('the dead-letter arrival', () =>
      warnings().some((l) => l.includes('message arrived in a dead-letter queue')),
    );
  });

  it('printed every log record as one line, none as pretty JSON', () => {
    expect(
      lines.some((l) => /^\d{2}:\d{2}:\d{2}\.\d{3} INFO {2}drain +Drain done conversationId=/.test(l)),
    ).toBe(true);
    for (const line of lines.filter((l) => /^\d{2}:\d{2}:\d{2}\.\d{3} /.test(l))) {
      expect(line).not.toContain('\n');
    }
    expect(lines.filter((l) => l.trimStart().startsWith('{'))).toEqual([]);
  });
});
