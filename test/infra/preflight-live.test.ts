import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import {
  CreateSecretCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type SlackAgentsConfig } from '../../infra/config.ts';
import { livePreflight } from '../../infra/preflight/live-checks.ts';
import { buildSlackManifest } from '../../infra/slack-manifest.ts';
import { startMoto } from '../../local/moto-server.ts';
import { createSlackApiHandler } from '../../local/slack/api.ts';
import { FakeSlack } from '../../local/slack/fake-slack.ts';
import { WORKFLOW_MODULES } from '../../statemachines/index.ts';
import { startTestGitHub, type TestGitHub } from '../local/github-harness.ts';
import { restoreEnvironment } from '../support/environment.ts';

/**
 * The live preflight against the sandbox's emulators through the real clients: moto for
 * CloudFormation and Secrets Manager, the fake Slack, the GitHub emulator with an App key made
 * for this run, and a Messages API answering like Anthropic's.
 */
const EXAMPLE = JSON.parse(
  readFileSync(new URL('../../docs/examples/bug-investigation.json', import.meta.url), 'utf8'),
);
const config: SlackAgentsConfig = parseConfig(EXAMPLE);
const BOT_TOKEN = 'xoxb-preflight-test';
const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

let moto: Awaited<ReturnType<typeof startMoto>>;
let github: TestGitHub;
const servers: Server[] = [];
const saved = { ...process.env };
let slackScopes: string[] = [];
let slackUrl = '';
let modelUrl = '';

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A deployed stack in moto: its outputs name secrets holding these values. */
async function deploy(stackName: string, secrets: Record<string, unknown>): Promise<void> {
  const client = new SecretsManagerClient({});
  const outputs: Record<string, { Value: string }> = {};
  for (const [output, value] of Object.entries(secrets)) {
    const name = `${stackName}-${output}`;
    // Created with the stack's generated stand-in, then filled as an operator would.
    await client.send(
      new CreateSecretCommand({ Name: name, SecretString: JSON.stringify({ generated: 'x' }) }),
    );
    await client.send(new PutSecretValueCommand({ SecretId: name, SecretString: JSON.stringify(value) }));
    outputs[output] = { Value: name };
  }
  const template = { Resources: { Marker: { Type: 'AWS::SQS::Queue' } }, Outputs: outputs };
  await new CloudFormationClient({}).send(
    new CreateStackCommand({ StackName: stackName, TemplateBody: JSON.stringify(template) }),
  );
}

const FILLED = {
  SlackCredentialsSecretName: { signingSecret: '0123456789abcdef0123456789abcdef', botToken: BOT_TOKEN },
  ModelCredentialsSecretName: { apiKey: 'sk-ant-preflight-test' },
  GitHubCredentialsSecretArn: { appId: '1', installationId: '1', privateKey },
};

beforeAll(async () => {
  moto = await startMoto();
  github = await startTestGitHub({ app: { publicKeyPem: publicKey } });
  await github.emulator.store.createRepository({
    owner: 'acme',
    name: 'webshop',
    files: { 'README.md': 'shop' },
  });
  slackUrl = await listen((req, res) => {
    const slack = new FakeSlack({
      botToken: BOT_TOKEN,
      channels: [
        { id: 'C07BUGREPRT', name: 'bug-reports' },
        { id: 'C07BUGSUMRY', name: 'bug-summaries' },
      ],
      userGroups: { S07DEVELOPR: ['U07LEADDEVL'], S07ONCALLRS: [] },
    });
    void createSlackApiHandler(slack, { scopes: () => slackScopes })(req, res);
  });
  modelUrl = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'msg_preflight',
          type: 'message',
          role: 'assistant',
          model: config.model.id,
          content: [{ type: 'text', text: 'p' }],
          stop_reason: 'max_tokens',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
      );
    });
  });
  Object.assign(process.env, {
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'preflight',
    AWS_SECRET_ACCESS_KEY: 'preflight',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: moto.endpoint,
    AWS_ENDPOINT_URL_CLOUDFORMATION: moto.endpoint,
  });
});

afterAll(async () => {
  restoreEnvironment(saved);
  moto?.process.kill();
  await github?.close();
  for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
});

const env = () => ({ ...process.env, SLACK_API_URL: `${slackUrl}/api/`, ANTHROPIC_BASE_URL: modelUrl });
const live = (stack: string, cfg: SlackAgentsConfig = config) =>
  livePreflight({ ...cfg, github: { baseUrl: github.emulator.apiUrl } }, stack, env());

describe('the live preflight', () => {
  it('passes a filled install: secrets, Slack scopes, channels and groups, the GitHub App, the model', async () => {
    slackScopes = buildSlackManifest({ config, modules: WORKFLOW_MODULES }).oauth_config.scopes.bot;
    await deploy('Ready', FILLED);
    const report = await live('Ready', {
      ...config,
      channels: { ...config.channels, developers: 'C07BUGSUMRY' },
    });
    expect(report.problems).toEqual([]);
    expect(report.passed).toEqual(
      expect.arrayContaining([
        'SlackCredentialsSecretName: filled',
        'GitHubCredentialsSecretArn: filled',
        expect.stringMatching(/^Slack: the token has the \d+ scopes of the manifest$/),
        'channels.bugReports: C07BUGREPRT, the bot is in it',
        'people.on_call: user group S07ONCALLRS',
        'GitHub acme/webshop: App installation 1 with its permissions',
        `model: anthropic answers with ${config.model.id}`,
      ]),
    );
  });

  it('names each problem with its fix', async () => {
    slackScopes = ['chat:write'];
    await deploy('Unfinished', {
      ...FILLED,
      ModelCredentialsSecretName: { apiKey: 'REPLACE_WITH_ANTHROPIC_KEY' },
      GitHubCredentialsSecretArn: { appId: '1', installationId: '42', privateKey },
    });
    const report = await live('Unfinished');
    expect(report.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^ModelCredentialsSecretName \(Unfinished-ModelCredentialsSecretName\): apiKey is still the placeholder: aws secretsmanager put-secret-value/,
        ),
        expect.stringMatching(
          /^Slack: the token lacks the scopes .*app_mentions:read.*: update the app from npm run slack:manifest and reinstall it/,
        ),
        expect.stringMatching(
          /^channels\.developers: C07DEVELOPR \(channel_not_found\): set the channel's id/,
        ),
        expect.stringMatching(
          /^GitHub acme\/webshop: the App's installation here is 1, the secret says 42: put 1 in installationId/,
        ),
      ]),
    );
    expect(await live('NotDeployed').then((r) => r.problems)).toEqual([
      expect.stringMatching(/^stack NotDeployed: not found with these credentials .*: run npx cdk deploy/),
    ]);
  });
});
