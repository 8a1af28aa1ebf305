import { describe, expect, it } from 'vitest';
import { RedactionSettings, Redactor, safeCut } from '../../lambdas/redaction/index.ts';
import { fakeValues } from './fake-values.ts';

const v = fakeValues();
const DEFAULTS = RedactionSettings.parse({});
const WITH_EMAIL = RedactionSettings.parse({ pii: ['card', 'email'] });

describe('safeCut keeping the head', () => {
  const before = 'x'.repeat(100);
  const text = `${before} ${v.githubToken} and the rest`;
  const start = before.length + 1;

  it.each([1, 4, 10, 28, 35])('moves a cut %i characters into a token back to its start', async (into) => {
    const at = await safeCut(text, start + into, 'head', DEFAULTS);
    expect(at).toBe(start);
    expect(text.slice(0, at)).not.toContain(v.githubToken.slice(0, 4));
  });

  it('leaves a cut just before or just after a token where it is', async () => {
    expect(await safeCut(text, start, 'head', DEFAULTS)).toBe(start);
    const end = start + v.githubToken.length;
    expect(await safeCut(text, end, 'head', DEFAULTS)).toBe(end);
  });

  it("moves a cut inside a connection string's password out of the whole connection string", async () => {
    const url = `postgres://deploy:${v.dbPassword}@db.internal:5432/orders`;
    const line = `dsn ${url} in use`;
    const at = await safeCut(line, line.indexOf(v.dbPassword) + 5, 'head', DEFAULTS);
    expect(at).toBe(line.indexOf(url));
  });

  it('moves a cut inside an email address only when the email class is on', async () => {
    const line = `mail ${v.email} now`;
    const at = line.indexOf(v.email) + 4;
    expect(await safeCut(line, at, 'head', WITH_EMAIL)).toBe(line.indexOf(v.email));
    expect(await safeCut(line, at, 'head', DEFAULTS)).toBe(at);
  });

  it('leaves a cut in a text with nothing to redact where it is', async () => {
    const line = 'GET /orders/1234 200 in 35 ms; retries 0; deploy 7f3a9c1 of payment-api'.repeat(3);
    expect(await safeCut(line, 90, 'head', DEFAULTS)).toBe(90);
  });
});

describe('safeCut keeping the tail', () => {
  it('moves a cut inside a token forward to its end', async () => {
    const text = `head ${v.githubToken} tail`;
    const start = text.indexOf(v.githubToken);
    const at = await safeCut(text, start + 30, 'tail', DEFAULTS);
    expect(at).toBe(start + v.githubToken.length);
    expect(text.slice(at)).toBe(' tail');
  });

  it('moves past a value the cut would leave whole but without the key that makes it one', async () => {
    const text = `export aws_secret_access_key=${v.awsSecretKey} # rotated`;
    const valueAt = text.indexOf(v.awsSecretKey);
    expect((await new Redactor('c').redact(text.slice(valueAt))).text).toContain(v.awsSecretKey);

    const at = await safeCut(text, valueAt, 'tail', DEFAULTS);

    expect(at).toBe(valueAt + v.awsSecretKey.length);
  });
});
