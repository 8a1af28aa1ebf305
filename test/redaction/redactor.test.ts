import { describe, expect, it } from 'vitest';
import { RedactionSettings, Redactor, redactionNote } from '../../lambdas/redaction/index.ts';
import { findPii } from '../../lambdas/redaction/pii.ts';
import { findSecrets, pieces } from '../../lambdas/redaction/secret-rules.ts';
import { fakeValues, grouped } from './fake-values.ts';

const v = fakeValues();
const ALL_PII = RedactionSettings.parse({ pii: ['email', 'phone', 'card', 'iban', 'ip'] });

describe('secrets', () => {
  it('replaces each rule-set secret with a typed placeholder and counts it', async () => {
    const text = `key ${v.awsAccessKey} token ${v.githubToken} bot ${v.slackToken}`;
    const out = await new Redactor('c1').redact(text);
    expect(out.text).toMatch(
      /^key <secret:aws-access-key#[0-9a-f]{4}> token <secret:github-token#[0-9a-f]{4}> bot <secret:slack-token#[0-9a-f]{4}>$/,
    );
    expect(out.counts).toEqual({
      'secret:aws-access-key': 1,
      'secret:github-token': 1,
      'secret:slack-token': 1,
    });
  });

  it('leaves nothing behind in the process: no performance marks or measures per call', async () => {
    // secretlint's profiler marks every rule on every run by default and never clears them.
    const entries = () =>
      performance.getEntriesByType('mark').length + performance.getEntriesByType('measure').length;
    const before = entries();
    for (let i = 0; i < 20; i += 1) await new Redactor('c1').redact(`token ${v.githubToken}`);
    expect(entries()).toBe(before);
  });

  it('finds the same secrets in a short text every time it sees it, and nothing in a clean one', async () => {
    // Short clean texts are remembered; a text holding a secret never is.
    const secret = `token ${v.githubToken}`;
    const first = await findSecrets(secret);
    expect(first.map((f) => f.kind)).toEqual(['github-token']);
    expect(await findSecrets(secret)).toEqual(first);
    expect(await findSecrets('deploys run daily at 14:00')).toEqual([]);
    expect(await findSecrets('deploys run daily at 14:00')).toEqual([]);
  });

  it('replaces the AWS secret key itself, keeping the name it was assigned to', async () => {
    const out = await new Redactor('c1').redact(`AWS_SECRET_ACCESS_KEY=${v.awsSecretKey}\n`);
    expect(out.text).toMatch(/^AWS_SECRET_ACCESS_KEY=<secret:aws-secret-key#[0-9a-f]{4}>\n$/);
  });

  it('takes a connection string whole and a URL password by shape', async () => {
    const out = await new Redactor('c1').redact(
      `db postgres://app:${v.dbPassword}@db.internal:5432/shop\nqueue amqp://worker:${v.dbPassword}@mq.internal/`,
    );
    expect(out.text).not.toContain(v.dbPassword);
    expect(out.counts['secret:connection-string']).toBe(1);
    expect(out.text).toContain('amqp://worker:<secret:connection-password#');
  });

  it('takes values after secret keys when random, or whatever follows a password key', async () => {
    const out = await new Redactor('c1').redact(
      `password=hunter2 api_key="${v.apiKey}" token_count=3 auth=true`,
    );
    expect(out.text).toMatch(
      /^password=<secret:password#\w{4}> api_key="<secret:key-value-secret#\w{4}>" token_count=3 auth=true$/,
    );
  });

  it('gives the same value the same placeholder within a conversation, another in the next', async () => {
    const first = await new Redactor('c1').redact(`${v.githubToken} and again ${v.githubToken}`);
    const [a, b] = first.text.match(/<secret:github-token#\w{4}>/g) ?? [];
    expect(a).toBeDefined();
    expect(a).toBe(b);
    const later = await new Redactor('c1').redact(`once more ${v.githubToken}`);
    expect(later.text).toContain(a);
    const elsewhere = await new Redactor('c2').redact(v.githubToken);
    expect(elsewhere.text).not.toBe(a);
  });

  it('finds a secret in a text longer than one scanned piece, on a cut or not', async () => {
    const filler = 'x'.repeat(20_000);
    const out = await new Redactor('c1').redact(`${filler} ${v.githubToken} ${filler}\n${v.slackToken}`);
    expect(out.counts).toEqual({ 'secret:github-token': 1, 'secret:slack-token': 1 });
    expect(pieces('a'.repeat(40_000)).length).toBeGreaterThan(2);
  });

  it('leaves values on the allow list', async () => {
    const settings = RedactionSettings.parse({ allow: [v.githubToken] });
    const out = await new Redactor('c1', settings).redact(`public ${v.githubToken}`);
    expect(out).toEqual({ text: `public ${v.githubToken}`, counts: {} });
  });

  it('leaves text it already redacted as it is', async () => {
    const once = await new Redactor('c1', ALL_PII).redact(`password=hunter2 ${v.email}`);
    const twice = await new Redactor('c1', ALL_PII).redact(once.text);
    expect(twice).toEqual({ text: once.text, counts: {} });
  });

  it('leaves a placeholder escaped for Slack as it is, where it follows a word that names a secret', async () => {
    // A text rendered for Slack escapes `<` and `>`; unrecognised, `key &lt;secret:...` read as key: value.
    const once = await new Redactor('c1', ALL_PII).redact(`with key ${v.awsAccessKey} for ${v.email}`);
    const escaped = once.text.replace(/</g, '&lt;').replace(/>/g, '&gt;');
    expect(escaped).toMatch(/^with key &lt;secret:aws-access-key#\w{4}&gt; for &lt;pii:email#\w{4}&gt;$/);
    expect(await new Redactor('c1', ALL_PII).redact(escaped)).toEqual({ text: escaped, counts: {} });
  });
});

describe('personal data', () => {
  it('redacts only cards by default', async () => {
    const text = `${v.email} ${v.phone} ${grouped(v.card)} ${v.iban} ${v.ip}`;
    const out = await new Redactor('c1').redact(text);
    expect(out.counts).toEqual({ 'pii:card': 1 });
    expect(out.text).toContain(v.email);
  });

  it('redacts every configured class', async () => {
    const text = `mail ${v.email} call ${v.phone} card ${v.card} iban ${v.iban} from ${v.ip} or fe80::1ff:fe23:4567:890a`;
    const out = await new Redactor('c1', ALL_PII).redact(text);
    expect(out.counts).toEqual({ 'pii:email': 1, 'pii:phone': 1, 'pii:card': 1, 'pii:iban': 1, 'pii:ip': 2 });
    for (const value of [v.email, v.phone, v.card, v.iban, v.ip]) expect(out.text).not.toContain(value);
  });

  it('calls a number a card only when it passes the Luhn check and starts like one', () => {
    const found = (text: string, kind: 'card' | 'iban') => findPii(text, [kind]);
    expect(found(v.card, 'card')).toEqual([{ start: 0, end: 16, family: 'pii', kind: 'card' }]);
    expect(found(`${v.card.slice(0, -1)}${(Number(v.card.at(-1)) + 1) % 10}`, 'card')).toEqual([]);
    // Epoch milliseconds that pass the Luhn check: only the prefix, no card network's, keeps them.
    expect(found('1733142094122', 'card')).toEqual([]);
    expect(found('GB82WEST12345698765432', 'iban')).toEqual([
      { start: 0, end: 22, family: 'pii', kind: 'iban' },
    ]);
    expect(found('GB83WEST12345698765432', 'iban')).toEqual([]);
  });

  it('keeps request ids, hashes, durations, timestamps, versions and times of day', async () => {
    const line =
      'request_id=3f2b9c1e-8d7a-4b6c-9e5f-1a2b3c4d5e6f commit 9fceb02d0ae598e95dc970b74767f19372d61af8 ' +
      'took 1532ms ts=1733142094123 version 1.2.3.4.5 at 12:30:45 span 00f067aa0ba902b7 order 1234567890123456';
    const out = await new Redactor('c1', ALL_PII).redact(line);
    expect(out).toEqual({ text: line, counts: {} });
  });

  it('rejects an unknown class with the field named', () => {
    const parsed = RedactionSettings.safeParse({ pii: ['passport'] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['pii', 0]);
  });
});

describe('structured values', () => {
  it('redacts every string in a JSON value and sums the counts', async () => {
    const { value, counts } = await new Redactor('c1').redactValue({
      text: `token ${v.githubToken}`,
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: `card ${v.card}` } }],
      ts: 12,
    });
    expect(JSON.stringify(value)).not.toContain(v.githubToken);
    expect(JSON.stringify(value)).not.toContain(v.card);
    expect(value.ts).toBe(12);
    expect(counts).toEqual({ 'secret:github-token': 1, 'pii:card': 1 });
  });
});

describe('the outcome note', () => {
  it('says how many values of which kinds, most first, and nothing when none', () => {
    expect(redactionNote({ 'pii:email': 1, 'secret:aws-access-key': 2 })).toBe(
      ' · redacted 3: 2 aws-access-key, 1 email',
    );
    expect(redactionNote({})).toBe('');
  });
});

describe('ids in real logs', () => {
  it('keeps an HDFS block id that passes the Luhn check and a ZooKeeper session id', async () => {
    // Both lines are shaped after the public Loghub samples: the block id's 19 digits pass Luhn.
    const line =
      'INFO dfs.DataBlockScanner: Verification succeeded for blk_-4980916519894289629\n' +
      'Processed session termination for sessionid: 0x14ede63a5a70002';
    // Standing alone, the block id's digits are a card's (a Visa prefix, 19 digits, the Luhn check).
    expect(findPii('4980916519894289629', ['card'])).toEqual([
      { start: 0, end: 19, family: 'pii', kind: 'card' },
    ]);
    const out = await new Redactor('c1').redact(line);
    expect(out).toEqual({ text: line, counts: {} });
  });
});
