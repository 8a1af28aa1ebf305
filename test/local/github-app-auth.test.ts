import { createSign, generateKeyPairSync } from 'node:crypto';
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure, startTestGitHub, type TestGitHub } from './github-harness.ts';
import { assertMatchesSchema } from './github-openapi.ts';

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const keyPair = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });

/** An RS256 JWT as a GitHub App signs it, with claims of our choosing. */
function jwt(privateKey: string, claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}`;
  const signature = createSign('RSA-SHA256').update(unsigned).sign(privateKey).toString('base64url');
  return `${unsigned}.${signature}`;
}

const now = () => Math.floor(Date.now() / 1000);

describe('the GitHub emulator: GitHub App authentication with a public key', () => {
  let gh: TestGitHub;
  const { privateKey, publicKey } = keyPair();
  beforeAll(async () => {
    gh = await startTestGitHub({ app: { publicKeyPem: publicKey } });
    await gh.emulator.store.createRepository({ owner: 'acme', name: 'app', files: { a: 'a' } });
  });
  afterAll(() => gh.close());

  const app = () =>
    new Octokit({
      baseUrl: gh.emulator.apiUrl,
      log: quiet,
      authStrategy: createAppAuth,
      auth: { appId: 1, privateKey },
    });

  it('finds the repository installation and mints an installation token with the App JWT', async () => {
    const installation = await app().rest.apps.getRepoInstallation({ owner: 'acme', repo: 'app' });
    assertMatchesSchema('GET', '/repos/{owner}/{repo}/installation', 200, installation.data);
    expect(installation.data).toMatchObject({
      id: 1,
      app_id: 1,
      permissions: { contents: 'write', pull_requests: 'write' },
    });
    const token = await app().rest.apps.createInstallationAccessToken({ installation_id: 1 });
    assertMatchesSchema('POST', '/app/installations/{installation_id}/access_tokens', 201, token.data);
    const withToken = new Octokit({ baseUrl: gh.emulator.apiUrl, log: quiet, auth: token.data.token });
    expect((await withToken.rest.repos.get({ owner: 'acme', repo: 'app' })).data.permissions?.push).toBe(
      true,
    );
  });

  it('refuses a JWT signed with another key', async () => {
    const other = keyPair();
    const forged = new Octokit({
      baseUrl: gh.emulator.apiUrl,
      log: quiet,
      auth: jwt(other.privateKey, { iss: 1, iat: now() - 30, exp: now() + 500 }),
    });
    const result = await failure(forged.rest.apps.createInstallationAccessToken({ installation_id: 1 }));
    expect(result).toMatchObject({ status: 401, data: { message: 'A JSON web token could not be decoded' } });
    assertMatchesSchema('POST', '/app/installations/{installation_id}/access_tokens', 401, result.data);
  });

  it('refuses an installation token where the App JWT is needed, and an unknown installation', async () => {
    const token = await app().rest.apps.createInstallationAccessToken({ installation_id: 1 });
    const withToken = new Octokit({ baseUrl: gh.emulator.apiUrl, log: quiet, auth: token.data.token });
    expect(
      (await failure(withToken.rest.apps.createInstallationAccessToken({ installation_id: 1 }))).status,
    ).toBe(401);
    expect(
      (await failure(app().rest.apps.createInstallationAccessToken({ installation_id: 2 }))).status,
    ).toBe(404);
  });
});

describe('the GitHub emulator: GitHub App authentication without a public key', () => {
  let gh: TestGitHub;
  const { privateKey } = keyPair();
  beforeAll(async () => {
    gh = await startTestGitHub({ app: {} });
  });
  afterAll(() => gh.close());

  const withJwt = (claims: Record<string, unknown>) =>
    new Octokit({ baseUrl: gh.emulator.apiUrl, log: quiet, auth: jwt(privateKey, claims) });

  it('accepts any well-formed JWT of the app', async () => {
    const token = await withJwt({
      iss: '1',
      iat: now() - 30,
      exp: now() + 500,
    }).rest.apps.createInstallationAccessToken({ installation_id: 1 });
    expect(token.data.token).toMatch(/^ghs_/);
  });

  it('still refuses an expired JWT, one too long-lived, and one of another app', async () => {
    const expired = await failure(
      withJwt({ iss: 1, iat: now() - 900, exp: now() - 10 }).rest.apps.createInstallationAccessToken({
        installation_id: 1,
      }),
    );
    expect(expired.status).toBe(401);
    const tooLong = await failure(
      withJwt({ iss: 1, iat: now(), exp: now() + 3600 }).rest.apps.createInstallationAccessToken({
        installation_id: 1,
      }),
    );
    expect(tooLong).toMatchObject({
      status: 401,
      data: { message: "'Expiration time' claim ('exp') is too far in the future." },
    });
    const otherApp = await failure(
      withJwt({ iss: 2, iat: now(), exp: now() + 500 }).rest.apps.createInstallationAccessToken({
        installation_id: 1,
      }),
    );
    expect(otherApp.status).toBe(401);
  });
});
