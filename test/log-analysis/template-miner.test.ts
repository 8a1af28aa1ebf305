import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TRACKED_VALUES } from '../../lambdas/log-analysis/forks.ts';
import { DEFAULT_HEURISTICS } from '../../lambdas/log-analysis/heuristics.ts';
import { maskWord } from '../../lambdas/log-analysis/mask.ts';
import { mineRecords } from '../../lambdas/log-analysis/mine.ts';
import { TemplateMiner } from '../../lambdas/log-analysis/template-miner.ts';
import { tokenize } from '../../lambdas/log-analysis/tokenize.ts';

function mine(lines: string[]): string[] {
  const miner = new TemplateMiner();
  const groups = lines.map((l) => miner.add(l));
  return lines.map((l, i) => miner.templateOf(groups[i] as number, l).template);
}

/** A template as a regular expression: `<*>` matches anything, whitespace runs match whitespace runs. */
function matcher(template: string): RegExp {
  const parts = template
    .split('<*>')
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+'));
  return new RegExp(`^\\s*${parts.join('[\\s\\S]*?')}\\s*$`);
}

describe('maskWord', () => {
  it('masks numbers, ids, addresses and hex inside words and keeps their constant parts', () => {
    expect(maskWord('blk_-6952295868487656571')).toBe('blk_<*>');
    expect(maskWord('10.10.34.11:45307')).toBe('<*>:<*>');
    expect(maskWord('core.2275')).toBe('core.<*>');
    expect(maskWord('0x0b85eee0,')).toBe('<*>,');
    expect(maskWord('appattempt_1445144423722_0020_000001')).toBe('appattempt_<*>');
  });

  it('keeps words that are names with one digit and words without digits', () => {
    expect(maskWord('ssh2')).toBe('ssh2');
    expect(maskWord('Slf4jLogger')).toBe('Slf4jLogger');
    expect(maskWord('terminating')).toBe('terminating');
  });

  it('masks paths, URLs and instance names whole, and keeps units written on numbers', () => {
    expect(maskWord('/var/www/html/')).toBe('<*>');
    expect(maskWord('/etc/app/app.conf:')).toBe('<*>:');
    expect(maskWord('/default-rack')).toBe('/default-rack');
    expect(maskWord('hdfs://10.0.0.1:9000/logs/a.log')).toBe('hdfs://<*>');
    expect(maskWord('msra-sa-41:9000')).toBe('<*>:<*>');
    expect(maskWord('part-00347.')).toBe('part-<*>.');
    expect(maskWord('10000ms')).toBe('<*>ms');
    expect(maskWord('attempt_1445_0020_m_000001_0')).toBe('attempt_<*>');
  });

  it('masks host names and calendar words', () => {
    expect(maskWord('rhost=ns.example-host.com')).toBe('rhost=<*>');
    expect(maskWord('Jun')).toBe('<*>');
    expect(maskWord('org.apache.hadoop.MRAppMaster')).toBe('org.apache.hadoop.MRAppMaster');
  });
});

describe('tokenize', () => {
  it('folds a size unit into the number before it', () => {
    expect(tokenize('estimated size 5.2 KB, free 320 B').words).toEqual([
      'estimated',
      'size',
      '<*>,',
      'free',
      '<*>',
    ]);
  });

  it('folds a list of named values into one variable part', () => {
    expect(tokenize('delete blk_1 blk_-2 blk_3 now').words).toEqual(['delete', 'blk_<*>', 'now']);
    expect(tokenize('from 1.2.3.4: 11: bye').words).toEqual(['from', '<*>:', '<*>:', 'bye']);
  });

  it('ends a word at its dot leader where that rule is on', () => {
    const rules = { ...DEFAULT_HEURISTICS, dotLeaders: true };
    expect(tokenize('illegal instruction......0', [], true, rules).words).toEqual([
      'illegal',
      'instruction......',
      '<*>',
    ]);
    expect(tokenize('illegal instruction......0', [], true, { ...rules, dotLeaders: false }).words).toEqual([
      'illegal',
      'instruction......<*>',
    ]);
  });

  it('applies extra masking rules before the built-in masking', () => {
    const rules = [{ name: 'order', pattern: /ORD[A-Z]+/g }];
    expect(tokenize('order ORDABC shipped', rules).words).toEqual(['order', '<*>', 'shipped']);
  });
});

describe('a word that varies in a template', () => {
  // More distinct words than a fork tracks, so the position is plainly variable, not a fork;
  // the first two (nothing in common) are generalized first.
  const names = [
    'alice',
    'bob',
    ...Array.from({ length: MAX_TRACKED_VALUES - 1 }, (_, i) => `guest${String.fromCharCode(97 + i)}`),
  ];

  it('keeps the constant head up to a delimiter', () => {
    expect(new Set(mine(names.map((n) => `session opened for user=${n} by root`)))).toEqual(
      new Set(['session opened for user=<*> by root']),
    );
    expect(new Set(mine(names.map((n) => `session opened ${n} by root`)))).toEqual(
      new Set(['session opened <*> by root']),
    );
  });
});

describe('TemplateMiner', () => {
  it('groups messages that differ only in variables under one template', () => {
    expect(mine(['Connected to 10.0.0.1 in 35 ms', 'Connected to 10.0.0.2 in 7 ms'])).toEqual([
      'Connected to <*> in <*> ms',
      'Connected to <*> in <*> ms',
    ]);
  });

  it('keeps messages with different constant words apart', () => {
    const out = mine(['Disk full on sda', 'Service started after 3 tries']);
    expect(out[0]).not.toBe(out[1]);
  });

  it('turns a word into a variable once it takes many values', () => {
    const users = ['alice', 'bob', 'carol', 'dave', 'erin'];
    const out = mine(users.map((u) => `Invalid user ${u} from 10.0.0.${u.length}`));
    expect(new Set(out)).toEqual(new Set(['Invalid user <*> from <*>']));
  });

  it('forks a group whose messages differ in only a few plain words', () => {
    const lines = [
      'Failed password for root from 1.2.3.4 port 22 ssh2',
      'Failed none for root from 1.2.3.5 port 23 ssh2',
      'Failed password for root from 1.2.3.6 port 24 ssh2',
    ];
    expect(mine(lines)).toEqual([
      'Failed password for root from <*> port <*> ssh2',
      'Failed none for root from <*> port <*> ssh2',
      'Failed password for root from <*> port <*> ssh2',
    ]);
  });

  it('forks on every combination of upper-case constants (state transitions)', () => {
    const lines = ['task_1 from NEW to RUNNING', 'task_2 from RUNNING to DONE', 'task_3 from NEW to RUNNING'];
    const out = mine(lines);
    expect(out[0]).toBe('task_<*> from NEW to RUNNING');
    expect(out[1]).toBe('task_<*> from RUNNING to DONE');
    expect(out[2]).toBe(out[0]);
  });

  it('forks a field left empty from the same field with a value', () => {
    const lines = [
      'login failed rhost=10.0.0.1 tty=ssh',
      'login failed rhost=10.0.0.2 tty=ssh',
      'login failed rhost= tty=ssh',
    ];
    expect(mine(lines)).toEqual([
      'login failed rhost=<*> tty=ssh',
      'login failed rhost=<*> tty=ssh',
      'login failed rhost= tty=ssh',
    ]);
  });

  it('holds at most maxGroupsPerBucket groups per bucket, joining the most similar past it', () => {
    const miner = new TemplateMiner({ maxGroupsPerBucket: 2 });
    for (const l of ['alpha beta gamma', 'alpha delta epsilon', 'alpha zeta eta', 'alpha theta iota'])
      miner.add(l);
    expect(miner.groupCount).toBe(2);
  });

  it('groups messages whose first word is a variable without digits once first words abound', () => {
    const names = Array.from(
      { length: 150 },
      (_, i) => `user${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`,
    );
    const miner = new TemplateMiner();
    for (const name of names) miner.add(`${name} logged in from console`);
    expect(miner.groupCount).toBeLessThanOrEqual(101);
    expect(miner.templates()[0]).toMatchObject({ template: '<*> logged in from console', count: 50 });
  });

  it('counts templates, most frequent first', () => {
    const miner = new TemplateMiner();
    for (const l of ['a 1', 'a 2', 'a 3', 'b x y']) miner.add(l);
    expect(miner.templates().map((t) => [t.template, t.count])).toEqual([
      ['a <*>', 3],
      ['b x y', 1],
    ]);
  });

  it('mineRecords gives each record the id of its final template', () => {
    const mined = mineRecords([
      { message: 'job 1 done' },
      { message: 'job 2 done' },
      { message: 'disk full' },
    ]);
    expect(mined.templateIds[0]).toBe(mined.templateIds[1]);
    expect(mined.text.get(mined.templateIds[0] as string)).toBe('job <*> done');
    expect(mined.templateIds[2]).not.toBe(mined.templateIds[0]);
  });
});

const word = fc.oneof(
  fc.constantFrom(
    'open',
    'closed',
    'user',
    'from',
    'port',
    'error',
    'NEW',
    'DONE',
    'id=',
    'x',
    ':',
    '[a]',
    'KB',
    'B,',
  ),
  fc.constantFrom(
    'a..',
    '...',
    'op......0',
    '/var/log/x',
    'hdfs://h:1/p',
    'web-prod-12',
    'blk_1',
    'blk_-2',
    'Jun',
    '10ms',
  ),
  fc.constantFrom(
    "'a b'",
    '"x y z",',
    "'open",
    "end'",
    'msg="p q"',
    'ops@example.com',
    'fe80::1',
    'C:\\x\\y.log',
    'file=/a/b/c',
    '550e8400-e29b-41d4-a716-446655440000',
    'LOGIN(uid=0)',
    '(uid=1)',
    'key=',
  ),
  fc.integer({ min: 0, max: 99999 }).map(String),
  fc.stringMatching(/^[a-z]{1,8}$/),
  fc.stringMatching(/^[a-z0-9._:=/<>*-]{1,12}$/),
);
const space = fc.constantFrom(' ', ' ', ' ', '  ', '\t');
const line = fc
  .array(fc.tuple(word, space), { minLength: 0, maxLength: 8 })
  .map((parts) => parts.map(([w, s]) => w + s).join(''));

describe('TemplateMiner properties', () => {
  it('gives every line exactly one template, and that template matches the line', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 60 }), (lines) => {
        const miner = new TemplateMiner();
        const groups = lines.map((l) => miner.add(l));
        const templates = lines.map((l, i) => miner.templateOf(groups[i] as number, l));
        templates.forEach((t, i) => {
          expect(lines[i]).toMatch(matcher(t.template));
        });
        // Each final template id names one template text, and the counts add up to the lines.
        const byId = new Map(miner.templates().map((t) => [t.id, t]));
        for (const t of templates) expect(byId.get(t.id)?.template).toBe(t.template);
        expect([...byId.values()].reduce((n, t) => n + t.count, 0)).toBe(lines.length);
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same template to lines that differ only in numbers', () => {
    fc.assert(
      fc.property(line, fc.integer({ min: 0, max: 1e9 }), fc.integer({ min: 0, max: 1e9 }), (l, a, b) => {
        const [x, y] = mine([`${l} took ${a} ms`, `${l} took ${b} ms`]);
        expect(x).toBe(y);
      }),
    );
  });
});
