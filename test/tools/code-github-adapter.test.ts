import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubClient, getGitHubCredentials } from '../../lambdas/adapters/github.ts';
import { InvalidSecretError } from '../../lambdas/adapters/secrets.ts';
import { readCodeToolsConfig } from '../../lambdas/tools/code/config.ts';
import { InvalidCodeToolsConfigurationError } from '../../lambdas/tools/code/errors.ts';
import { RepositoryRef } from '../../lambdas/tools/code/repository.ts';
import { type CodeToolsWorld, quiet, startCodeToolsWorld } from './code-tools-support.ts';

let world: CodeToolsWorld;
beforeAll(async () => {
  world = await startCodeToolsWorld();
});
afterAll(() => world.close());

describe('RepositoryRef', () => {
  it('parses owner/name', () => {
    expect(RepositoryRef.parse('demo/webshop')).toEqual({ owner: 'demo', repo: 'webshop' });
    expect(RepositoryRef.parse('my-org/repo.name_2')).toEqual({ owner: 'my-org', repo: 'repo.name_2' });
  });

  it.each([
    'webshop',
    'demo/',
    '/webshop',
    'demo/web/shop',
    '-demo/webshop',
    'demo--x/a',
    'demo/..',
    'de mo/x',
    `${'a'.repeat(40)}/x`,
  ])('refuses %j', (value) => {
    expect(RepositoryRef.safeParse(value).success).toBe(false);
  });
});

describe('getGitHubCredentials', () => {
  it('prefers the token override (sandbox, development)', async () => {
    const readSecret = async () => {
      throw new Error('the secret must not be read');
    };
    expect(
      await getGitHubCredentials({ tokenOverride: 'ghp_local', secretArn: 'arn:x', readSecret }),
    ).toEqual({
      token: 'ghp_local',
    });
  });

  it('reads App credentials from the secret', async () => {
    const secret = { appId: '12', privateKey: world.privateKey, installationId: 34 };
    expect(await getGitHubCredentials({ secretArn: 'arn:github', readSecret: async () => secret })).toEqual(
      secret,
    );
  });

  it('reads a fine-grained token from the secret', async () => {
    expect(
      await getGitHubCredentials({
        secretArn: 'arn:github',
        readSecret: async () => ({ token: 'github_pat_x' }),
      }),
    ).toEqual({ token: 'github_pat_x' });
  });

  it('refuses a secret with neither shape, without echoing it', async () => {
    const attempt = getGitHubCredentials({
      secretArn: 'arn:github',
      readSecret: async () => ({ appId: 'abc', privateKey: 'not a key', installationId: '1' }),
    });
    await expect(attempt).rejects.toThrow(InvalidSecretError);
    await expect(attempt).rejects.toThrow('secret arn:github does not hold the expected JSON fields');
  });

  it('says what to set when there is neither a secret nor a token', async () => {
    await expect(getGitHubCredentials({})).rejects.toMatchObject({
      name: 'MissingGitHubCredentialsError',
      message: 'no GitHub credentials: set GITHUB_SECRET_ARN (or GITHUB_TOKEN outside AWS)',
    });
  });
});

describe('createGitHubClient against the emulator', () => {
  it('authenticates as the App installation, minting an installation token with a signed JWT', async () => {
    const octokit = createGitHubClient({
      baseUrl: `${world.gh.emulator.apiUrl}/`,
      credentials: { appId: 1, privateKey: world.privateKey, installationId: 1 },
      log: quiet,
    });
    const { data } = await octokit.rest.repos.get({ owner: world.owner, repo: world.repo });
    expect(data.full_name).toBe('demo/webshop');
    const auth = (await octokit.auth({ type: 'installation' })) as { token: string; tokenType: string };
    expect(auth).toMatchObject({ tokenType: 'installation' });
    expect(auth.token).toMatch(/^ghs_/);
  });

  it('is refused with a key the App does not have', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const octokit = createGitHubClient({
      baseUrl: world.gh.emulator.apiUrl,
      credentials: { appId: '1', privateKey, installationId: '1' },
      log: quiet,
    });
    await expect(octokit.rest.repos.get({ owner: world.owner, repo: world.repo })).rejects.toMatchObject({
      status: 401,
    });
  });

  it('authenticates with a token', async () => {
    const octokit = createGitHubClient({
      baseUrl: world.gh.emulator.apiUrl,
      credentials: { token: world.gh.emulator.createUserToken('demo') },
      log: quiet,
    });
    const { data } = await octokit.rest.git.getRef({
      owner: world.owner,
      repo: world.repo,
      ref: 'heads/main',
    });
    expect(data.ref).toBe('refs/heads/main');
  });
});

describe('readCodeToolsConfig', () => {
  it('fills in the defaults', () => {
    expect(readCodeToolsConfig({ CODE_REPOSITORY: 'demo/webshop' })).toEqual({
      repository: { owner: 'demo', repo: 'webshop' },
      branchPrefix: 'agents/',
      cacheDir: '/tmp/code-tools',
      cacheMaxMb: 300,
      tarballMaxMb: 100,
      maxFileBytes: 262_144,
      searchMaxMb: 64,
    });
  });

  it('reads every variable', () => {
    const config = readCodeToolsConfig({
      CODE_REPOSITORY: 'acme/app',
      GITHUB_BASE_URL: 'https://github.example.com/api/v3',
      GITHUB_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:github',
      CODE_BASE_BRANCH: 'develop',
      CODE_BRANCH_PREFIX: 'bots/agents/',
      CODE_CACHE_DIR: '/tmp/elsewhere',
      CODE_CACHE_MAX_MB: '100',
      CODE_TARBALL_MAX_MB: '20',
      CODE_MAX_FILE_BYTES: '1000',
      CODE_SEARCH_MAX_MB: '8',
    });
    expect(config).toMatchObject({
      githubBaseUrl: 'https://github.example.com/api/v3',
      baseBranch: 'develop',
      branchPrefix: 'bots/agents/',
      cacheMaxMb: 100,
      searchMaxMb: 8,
    });
  });

  it('takes an empty variable as unset, so a prefix is never empty', () => {
    expect(readCodeToolsConfig({ CODE_REPOSITORY: 'a/b', CODE_BRANCH_PREFIX: '' }).branchPrefix).toBe(
      'agents/',
    );
  });

  it.each([
    [{}, /repository/],
    [{ CODE_REPOSITORY: 'webshop' }, /owner\/name/],
    [{ CODE_REPOSITORY: 'a/b', CODE_BRANCH_PREFIX: 'agents' }, /ending with \//],
    [{ CODE_REPOSITORY: 'a/b', CODE_BRANCH_PREFIX: '../' }, /ending with \//],
    [{ CODE_REPOSITORY: 'a/b', GITHUB_BASE_URL: 'file:///etc' }, /githubBaseUrl/],
    [{ CODE_REPOSITORY: 'a/b', CODE_CACHE_MAX_MB: 'lots' }, /cacheMaxMb/],
  ])('refuses %j', (env, reason) => {
    expect(() => readCodeToolsConfig(env)).toThrow(InvalidCodeToolsConfigurationError);
    expect(() => readCodeToolsConfig(env)).toThrow(reason);
  });
});
