import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Logger } from '@aws-lambda-powertools/logger';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler } from '../../lambdas/handlers/code-tools.ts';
import { InvalidTaskInputError } from '../../lambdas/kernel/errors.ts';
import {
  ALL_CODE_TOOLS,
  CODE_TOOLS_FUNCTION,
  codeToolFunctions,
  codeToolSpecs,
  READ_CODE_TOOLS,
} from '../../lambdas/tools/code/deployment.ts';
import { startMoto } from '../../local/moto-server.ts';
import { fakeValues } from '../redaction/fake-values.ts';
import { handlerEnvironment, startDynalite } from '../support/dynalite.ts';
import { type CodeToolsWorld, output, refusal, startCodeToolsWorld } from './code-tools-support.ts';

/**
 * The Lambda as deployed: configured by environment, its GitHub App credentials in a Secrets
 * Manager secret (moto_server here, read through Powertools and the real SDK), GitHub at the
 * emulator.
 */

let world: CodeToolsWorld;
let db: Awaited<ReturnType<typeof startDynalite>>;
let moto: ChildProcess;
const cacheDir = mkdtempSync(join(tmpdir(), 'code-tools-handler-'));

beforeAll(async () => {
  [world, db] = await Promise.all([startCodeToolsWorld(), startDynalite()]);
  const started = await startMoto();
  moto = started.process;
  const secretsEndpoint = started.endpoint;
  const aws = { region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };
  const secrets = new SecretsManagerClient({ ...aws, endpoint: secretsEndpoint });
  const { ARN } = await secrets.send(
    new CreateSecretCommand({
      Name: 'github-app',
      SecretString: JSON.stringify({ appId: '1', privateKey: world.privateKey, installationId: '1' }),
    }),
  );
  secrets.destroy();
  Object.assign(process.env, handlerEnvironment(db), {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsEndpoint,
    CODE_REPOSITORY: `${world.owner}/${world.repo}`,
    GITHUB_BASE_URL: world.gh.emulator.apiUrl,
    GITHUB_SECRET_ARN: ARN,
    CODE_CACHE_DIR: cacheDir,
  });
});

afterAll(async () => {
  moto?.kill();
  await Promise.all([world?.close(), db?.close()]);
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('the code tools Lambda', () => {
  it('reads a file, authenticated as the App from the Secrets Manager secret', async () => {
    const result = await handler({
      tool: 'read_file',
      args: { path: 'src/item.ts' },
      conversationId: 'conv-handler',
    });
    expect(output(result)).toContain('2\t  price: number;');
  });

  it('serves every code tool from the one function', async () => {
    const conversationId = 'conv-handler';
    output(await handler({ tool: 'list_files', args: { glob: '*.md' }, conversationId }));
    output(await handler({ tool: 'search_code', args: { pattern: 'price' }, conversationId }));
    output(
      await handler({
        tool: 'write_file',
        args: { path: 'CHANGELOG.md', content: '- fix\n' },
        conversationId,
      }),
    );
    output(await handler({ tool: 'delete_file', args: { path: 'CHANGELOG.md' }, conversationId }));
    expect(output(await handler({ tool: 'get_diff', args: {}, conversationId }))).toMatch(
      /2 commit\(s\) ahead of main/,
    );
    expect(await world.head('agents/conv-handler')).toBeDefined();
  });

  it('answers arguments the model got wrong as a tool error', async () => {
    const result = await handler({
      tool: 'read_file',
      args: { file: 'src/item.ts' },
      conversationId: 'conv-handler',
    });
    expect(refusal(result)).toMatch(/^Invalid arguments for read_file:/);
  });

  it("logs a refused diff's summary with the file's line it quotes redacted", async () => {
    const { githubToken } = fakeValues();
    const conversationId = 'conv-handler-refused';
    const content = `NODE_ENV=production\nGITHUB_TOKEN=${githubToken}\nDEBUG=false\n`;
    output(await handler({ tool: 'write_file', args: { path: 'config/app.env', content }, conversationId }));
    // The model read the file redacted, so its diff's context line holds a placeholder, not the file's line.
    const diff = [
      '--- a/config/app.env',
      '+++ b/config/app.env',
      '@@ -1,3 +1,3 @@',
      ' NODE_ENV=production',
      ' GITHUB_TOKEN=<secret:github-token#0000>',
      '-DEBUG=false',
      '+DEBUG=true',
      '',
    ].join('\n');
    const info = vi.spyOn(Logger.prototype, 'info');
    let logged: string;
    try {
      const result = await handler({
        tool: 'write_file',
        args: { path: 'config/app.env', diff },
        conversationId,
      });
      expect(refusal(result)).toMatch(/its lines are found nowhere in the file/);
      logged = JSON.stringify(info.mock.calls.filter(([message]) => message === 'CodeTools done'));
    } finally {
      info.mockRestore();
    }

    expect(logged).toMatch(/but the file has \\"GITHUB_TOKEN=<secret:github-token#[0-9a-f]{4}>\\"/);
    expect(logged).not.toContain(githubToken);
  });

  it('fails an invocation of a tool that is not a code tool (a wiring defect)', async () => {
    await expect(
      handler({ tool: 'get_bug_conversations', args: {}, conversationId: 'conv-handler' }),
    ).rejects.toThrow(InvalidTaskInputError);
  });
});

describe('what the stack and the profiles wire', () => {
  it('names the handler entry that serves the tools', async () => {
    // As the sandbox loads a function: the entry file from the repository root.
    const entry = pathToFileURL(join(process.cwd(), CODE_TOOLS_FUNCTION.entry)).href;
    const module = (await import(entry)) as { handler: unknown };
    expect(module.handler).toBe(handler);
  });

  it('maps every code tool to the one function for TOOL_FUNCTIONS', () => {
    expect(codeToolFunctions('code-tools-fn')).toEqual({
      list_files: 'code-tools-fn',
      read_file: 'code-tools-fn',
      search_code: 'code-tools-fn',
      write_file: 'code-tools-fn',
      delete_file: 'code-tools-fn',
      get_diff: 'code-tools-fn',
    });
  });

  it('offers the read tools alone for investigating, and all six for a fix', () => {
    expect(codeToolSpecs(READ_CODE_TOOLS).map((t) => t.name)).toEqual([
      'list_files',
      'read_file',
      'search_code',
    ]);
    expect(codeToolSpecs().map((t) => t.name)).toEqual([...ALL_CODE_TOOLS]);
  });
});
