/**
 * Each rule the miner knows about log formats, on made-up lines (no benchmark log lines): the
 * variable shapes that are always on, the general rules, and each learned rule switched on
 * and off through `heuristics`.
 */
import { describe, expect, it } from 'vitest';
import {
  CONVENTIONS,
  DEFAULT_HEURISTICS,
  GENERAL,
  HEURISTIC_CANDIDATES,
  type Heuristics,
  LEARNED,
  resolveHeuristics,
} from '../../lambdas/log-analysis/heuristics.ts';
import { maskHosts } from '../../lambdas/log-analysis/hosts.ts';
import { maskWord } from '../../lambdas/log-analysis/mask.ts';
import { TemplateMiner } from '../../lambdas/log-analysis/template-miner.ts';
import { tokenize } from '../../lambdas/log-analysis/tokenize.ts';

function mine(lines: string[], heuristics: Partial<Heuristics> = {}): string[] {
  const miner = new TemplateMiner({ heuristics });
  const groups = lines.map((l) => miner.add(l));
  return lines.map((l, i) => miner.templateOf(groups[i] as number, l).template);
}

const words = (line: string, rules: Partial<Heuristics> = {}) =>
  tokenize(line, [], false, { ...DEFAULT_HEURISTICS, ...rules }).words;

describe('variable shapes that are always masked', () => {
  it('masks UUIDs, also where a part has no digit', () => {
    expect(maskWord('550e8400-e29b-41d4-a716-446655440000')).toBe('<*>');
    expect(maskWord('req=deadbeef-cafe-babe-face-feedfacecafe,')).toBe('req=<*>,');
  });

  it('masks MAC addresses and other colon- or hyphen-joined hex bytes, not times', () => {
    expect(maskWord('mac=00:1a:2b:3c:4d:5e')).toBe('mac=<*>');
    expect(maskWord('AA-BB-CC-DD-EE-FF')).toBe('<*>');
    expect(maskWord('12:30:45')).toBe('<*>:<*>:<*>');
  });

  it('masks IPv4 with a port and IPv6, compressed or whole', () => {
    expect(maskWord('10.1.2.3:8080')).toBe('<*>:<*>');
    expect(maskWord('[fe80::1ff:fe23:4567:890a]:22')).toBe('[<*>]:<*>');
    expect(maskWord('2001:0db8:85a3:0000:0000:8a2e:0370:7334')).toBe('<*>');
    expect(maskHosts('Parser::Read')).toBe('Parser::Read');
  });

  it('masks host names with a generic or a country top-level domain', () => {
    expect(maskWord('db-3.eu-west.example.de')).toBe('<*>');
    expect(maskWord('node.cluster.internal:8080')).toBe('<*>:<*>');
    expect(maskWord('from=mail.example.com')).toBe('from=<*>');
  });

  it('keeps file and class names that only look like host names', () => {
    expect(maskWord('main.py')).toBe('main.py');
    expect(maskWord('app.min.js')).toBe('app.min.js');
    expect(maskWord('backup.tar.gz')).toBe('backup.tar.gz');
    expect(maskWord('com.example.Worker')).toBe('com.example.Worker');
    // A property name ending in a country code is not a host; a machine-like name is.
    expect(maskWord('worker.task.id')).toBe('worker.task.id');
    expect(maskWord('www.example.co.uk')).toBe('<*>');
    expect(maskWord('host-7.example.it')).toBe('<*>');
  });

  it('masks e-mail addresses whole, and long hex ending in a unit letter whole', () => {
    expect(maskWord('to=ops.team@example.com,')).toBe('to=<*>,');
    expect(maskWord('Handler@7a3b94cd')).toBe('Handler@<*>');
    expect(maskWord('5d')).toBe('<*>d');
  });

  it('keeps the unit of a duration written on its number, and of a size without sizeUnits', () => {
    expect(maskWord('250ms')).toBe('<*>ms');
    expect(maskWord('took=1.5s')).toBe('took=<*>s');
    expect(maskWord('64MB', { ...DEFAULT_HEURISTICS, sizeUnits: false })).toBe('<*>MB');
  });

  it('masks a URL as its scheme and one value, and one of only a host and a port as host:port', () => {
    expect(maskWord('https://example.com/a/b?c=1')).toBe('https://<*>');
    expect(maskWord('ws://user@host-1:7077]')).toBe('ws://<*>]');
    expect(maskWord('[redis://cache.internal:6379]')).toBe('[redis://<*>:<*>]');
    expect(maskWord('amqp://10.0.0.5:5672,')).toBe('amqp://<*>:<*>,');
  });

  it('keeps a capitalized word glued after the digits of a value, not hex letters or size units', () => {
    expect(maskWord('run_2026_0042Task')).toBe('run_<*>Task');
    expect(maskWord('17Worker,')).toBe('<*>Worker,');
    // Hex letters, a size unit and letters before the digits stay in the value.
    expect(maskWord('0042Fade')).toBe('<*>');
    expect(maskWord('12Gib')).toBe('<*>');
    expect(maskWord('w7Task')).toBe('<*>');
  });

  it('keeps the key of a key=value pair and generalizes the value', () => {
    const out = mine([
      'cache miss key=alpha shard=1',
      'cache miss key=beta shard=2',
      'cache miss key=gamma shard=3',
      'cache miss key=delta shard=4',
    ]);
    expect(new Set(out)).toEqual(new Set(['cache miss key=<*> shard=<*>']));
  });

  it('masks a path given as a field value, and Windows paths', () => {
    expect(maskWord('file=/var/log/app.log')).toBe('file=<*>');
    expect(maskWord('path:/srv/x/y,')).toBe('path:<*>,');
    expect(maskWord('C:\\Users\\me\\report.txt;')).toBe('<*>;');
    expect(maskWord('user=/a')).toBe('user=/a');
  });

  it('masks a path whole, or keeps a file name that holds a value', () => {
    expect(maskWord('/srv/app/settings.yaml,')).toBe('<*>,');
    expect(maskWord('/srv/data/7/chunk_000123', { ...DEFAULT_HEURISTICS, pathFileName: true })).toBe(
      '/<*>/chunk_<*>',
    );
    expect(maskWord('/srv/data/7/chunk_000123', { ...DEFAULT_HEURISTICS, pathFileName: false })).toBe('<*>');
  });
});

describe('general rules', () => {
  it('merges values with only whitespace between, so templates agree across token counts', () => {
    const lines = [
      'backup finished at Tue Mar 3 04:05:06 2026',
      'backup finished at 2015-03-04 04:05:06',
      'backup finished at 2015-03-05T04:05:06Z',
    ];
    expect(new Set(mine(lines))).toEqual(new Set(['backup finished at <*>:<*>:<*>']));
    expect(words('at Tue Mar 3 04:05:06 2026', { mergeAdjacentValues: false })).toHaveLength(6);
  });

  it('keeps values apart when a word between them is constant', () => {
    expect(words('copied 3 of 7 files')).toEqual(['copied', '<*>', 'of', '<*>', 'files']);
  });

  it('reads a size and its unit as one value', () => {
    expect(words('wrote 5.2 KB then 320 B')).toEqual(['wrote', '<*>', 'then', '<*>']);
    const apart = { sizeUnits: false, mergeAdjacentValues: false, varyingFractions: false };
    expect(words('wrote 5.2 KB', apart)).toEqual(['wrote', '<*>', 'KB']);
  });

  it('reads a quoted string with spaces as one word, so its lines share a template', () => {
    expect(words("opened 'my notes.txt' for writing")).toEqual([
      'opened',
      "'my notes.txt'",
      'for',
      'writing',
    ]);
    expect(words('event msg="disk almost full" level=warn')).toEqual([
      'event',
      'msg="disk almost full"',
      'level=warn',
    ]);
    expect(words("opened 'my notes.txt' now", { quotedStrings: false })).toHaveLength(4);
    const lines = ['a report.pdf', 'quarterly sales 2026.xlsx', 'x y z.txt', 'todo.md', 'plan b.doc'].map(
      (name) => `opened file '${name}' for writing`,
    );
    expect(new Set(mine(lines))).toEqual(new Set(["opened file '<*>' for writing"]));
  });

  it('leaves an apostrophe inside text alone', () => {
    expect(words("can't reach 'primary' now")).toEqual(["can't", 'reach', "'primary'", 'now']);
    expect(words("user's 'unclosed quote here")).toHaveLength(4);
  });

  it('lets a short message join a group it differs from in one word', () => {
    const lines = ['Started alpha', 'Started bravo', 'Started charlie', 'Started delta', 'Started echo'];
    expect(new Set(mine(lines))).toEqual(new Set(['Started <*>']));
    expect(new Set(mine(lines, { oneDifferentWord: false })).size).toBe(5);
    expect(new Set(mine(['alpha', 'bravo'])).size).toBe(2);
  });

  it("keeps a fork branch's constant words but writes its values as the group does (branchValues)", () => {
    const lines = [
      'Saved item cache_1 as text',
      'Saved item cache_2 as text',
      'Saved item cache_3 as blob',
      'Saved item disk_4 as blob',
    ];
    // The branch `as text` saw only cache_ ids; the slot is the same parameter as in `as blob`.
    expect(mine(lines)).toEqual([
      'Saved item <*> as text',
      'Saved item <*> as text',
      'Saved item <*> as blob',
      'Saved item <*> as blob',
    ]);
    expect(mine(lines, { branchValues: false })[0]).toBe('Saved item cache_<*> as text');
    // A constant word all of a branch's messages share still narrows it.
    const sessions = [
      'Peer wants to open new session at 10.0.0.1:4000',
      'Peer wants to open new session at 10.0.0.2:4001',
      'Peer wants to renew session 0x1f at 10.0.0.3:4002',
      'Peer wants to renew session 0x2e at 10.0.0.4:4003',
    ];
    expect(new Set(mine(sessions))).toEqual(
      new Set(['Peer wants to open new session at <*>:<*>', 'Peer wants to renew session <*> at <*>:<*>']),
    );
  });

  it('forks an empty field from the same field with a value (emptyFieldFork)', () => {
    const lines = [
      'auth fail peer=10.0.0.1 mode=x',
      'auth fail peer=10.0.0.2 mode=x',
      'auth fail peer= mode=x',
    ];
    expect(mine(lines)[2]).toBe('auth fail peer= mode=x');
    expect(mine(lines, { emptyFieldFork: false })[2]).toBe('auth fail peer=<*> mode=x');
  });

  it('forks a word with a name before it from the same word without (emptyFieldFork)', () => {
    const lines = ['shell started by (pid=10)', 'shell started by (pid=11)', 'shell started by CRON(pid=12)'];
    expect(mine(lines)).toEqual([
      'shell started by (pid=<*>)',
      'shell started by (pid=<*>)',
      'shell started by CRON(pid=<*>)',
    ]);
    expect(new Set(mine(lines, { emptyFieldFork: false }))).toEqual(
      new Set(['shell started by <*>(pid=<*>)']),
    );
  });

  it('masks a numbered instance name whole, or only its number when switched off', () => {
    expect(maskWord('web-prod-12')).toBe('<*>');
    expect(maskWord('web-prod-12', { ...DEFAULT_HEURISTICS, instanceNames: false })).toBe('web-prod-<*>');
  });
});

describe('learned rules switch on and off', () => {
  it('a one-letter part between values belongs to the id (letterInId)', () => {
    expect(maskWord('task_2026_0001_r_000003')).toBe('task_<*>');
    expect(maskWord('task_2026_0001_r_000003', { ...DEFAULT_HEURISTICS, letterInId: false })).toBe(
      'task_<*>_r_<*>',
    );
  });

  it('forks a group on a few plain words (maxWordFork), or keeps one template at 0', () => {
    const lines = ['login denied for u17 via web', 'login allowed for u18 via web'];
    expect(mine(lines)).toEqual(['login denied for <*> via web', 'login allowed for <*> via web']);
    expect(mine(lines, { maxWordFork: 0 })).toEqual([
      'login <*> for <*> via web',
      'login <*> for <*> via web',
    ]);
  });

  it('forks on upper-case constants (maxConstantFork), or keeps one template at 0', () => {
    const lines = ['job 1 moved from QUEUED to ACTIVE', 'job 2 moved from ACTIVE to DONE'];
    expect(new Set(mine(lines)).size).toBe(2);
    expect(new Set(mine(lines, { maxConstantFork: 0, maxWordFork: 0 }))).toEqual(
      new Set(['job <*> moved from <*> to <*>']),
    );
  });

  it('makes a size unit written on its number part of the value (sizeUnits)', () => {
    expect(maskWord('64MB')).toBe('<*>');
    expect(maskWord('16K,')).toBe('<*>,');
    expect(maskWord('cache=512KiB')).toBe('cache=<*>');
    expect(maskWord('5124kB')).toBe('<*>');
    expect(maskWord('90s')).toBe('<*>s');
    expect(maskWord('2400MHz')).toBe('<*>MHz');
    const lines = ['heap grew to 120MB', 'heap grew to 3 GB', 'heap grew to 17.5 GiB'];
    expect(new Set(mine(lines))).toEqual(new Set(['heap grew to <*>']));
  });

  it('writes one space between the words of a template (singleSpaces)', () => {
    const lines = ['retry  in 5 s\tthen give up', 'retry in 7 s then  give up'];
    expect(new Set(mine(lines))).toEqual(new Set(['retry in <*> s then give up']));
    expect(new Set(mine(lines, { singleSpaces: false }))).toEqual(new Set(['retry  in <*> s\tthen give up']));
  });

  it('keeps whitespace between constants as all messages write it, one space next to a value (constantSpacing)', () => {
    const agreed = ['sync step:  done in 5 s', 'sync step:  done in 17 s'];
    expect(new Set(mine(agreed))).toEqual(new Set(['sync step:  done in <*> s']));
    expect(new Set(mine(agreed, { constantSpacing: false }))).toEqual(new Set(['sync step: done in <*> s']));
    // Padding after a value changes with its width: one space.
    const padded = ['slot 7    ready now', 'slot 1234 ready now'];
    expect(new Set(mine(padded))).toEqual(new Set(['slot <*> ready now']));
    // Messages that space the same constants differently: one space there.
    const differing = [
      'queue  drained after 3 tries',
      'queue drained after 4 tries',
      'queue  drained after 5 tries',
    ];
    expect(new Set(mine(differing))).toEqual(new Set(['queue drained after <*> tries']));
  });

  it('keeps a field name before = even with digits in it (keyNames)', () => {
    expect(maskWord('r24=0x0ffea4c8')).toBe('r24=<*>');
    expect(maskWord('PSR0=00001f01,')).toBe('PSR0=<*>,');
    expect(maskWord('ipv4=10.1.2.3')).toBe('ipv4=<*>');
    expect(maskWord('r24=')).toBe('r24=');
    expect(maskWord('r24=0x0ffea4c8', { ...DEFAULT_HEURISTICS, keyNames: false })).toBe('<*>=<*>');
    expect(words('regs r1=0x10 r2=0x20')).toEqual(['regs', 'r1=<*>', 'r2=<*>']);
  });

  it('ends a word at a dot leader (dotLeaders)', () => {
    expect(words('check disk.......3', { dotLeaders: true })).toEqual(['check', 'disk.......', '<*>']);
    expect(words('check disk.......3', { dotLeaders: false })).toEqual(['check', 'disk.......<*>']);
  });

  it('lets a first word that reads as a file or host name not pick the bucket (nameFirstWords)', () => {
    const lines = ['backup.exe - sent 10 bytes', 'sync.exe - sent 12 bytes', 'mail.exe - sent 9 bytes'];
    expect(new Set(mine(lines)).size).toBe(3);
    expect(new Set(mine(lines, { nameFirstWords: true }))).toEqual(new Set(['<*>.exe - sent <*> bytes']));
  });

  it('joins a group only above the similarity threshold', () => {
    const lines = ['alpha beta gamma delta', 'alpha beta zeta eta'];
    expect(new Set(mine(lines, { similarityThreshold: 0.5, maxWordFork: 0 })).size).toBe(1);
    expect(new Set(mine(lines, { similarityThreshold: 0.6, maxWordFork: 0 })).size).toBe(2);
  });
});

describe('template conventions (options, off by default)', () => {
  const on = (rule: keyof Heuristics) => ({ ...DEFAULT_HEURISTICS, [rule]: true });

  it('keeps letters glued before a number as a name (letterHeads)', () => {
    expect(maskWord('U11', on('letterHeads'))).toBe('U<*>');
    expect(maskWord('node559:', on('letterHeads'))).toBe('node<*>:');
    expect(maskWord('v2.1', { ...on('letterHeads'), varyingFractions: false })).toBe('v<*>');
    // Hex stays one value: its letters are digits.
    expect(maskWord('ffff3000', on('letterHeads'))).toBe('<*>');
    expect(maskWord('0x1f', on('letterHeads'))).toBe('<*>');
    expect(maskWord('U11')).toBe('<*>');
  });

  it('keeps the point of a decimal fraction (decimalPoint)', () => {
    const h = on('decimalPoint');
    expect(maskWord('0.25', h)).toBe('<*>.<*>');
    expect(maskWord('ratio=12.5,', h)).toBe('ratio=<*>.<*>,');
    expect(maskWord('v1.5', h)).toBe('<*>.<*>');
    expect(maskWord('v1.5', { ...h, letterHeads: true })).toBe('v<*>.<*>');
    // Three or more parts are a version or an address: one value.
    expect(maskWord('1.4.1', h)).toBe('<*>');
    expect(maskWord('10.0.0.1:80', h)).toBe('<*>:<*>');
    expect(maskWord('1.5s', h)).toBe('<*>s');
    expect(tokenize('free 8.8 KB', [], false, h).words).toEqual(['free', '<*>']);
    expect(maskWord('0.25', { ...DEFAULT_HEURISTICS, varyingFractions: false })).toBe('<*>');
  });

  it('keeps the root of an absolute path (pathRoot)', () => {
    const h = { ...on('pathRoot'), pathFileName: false };
    expect(maskWord('/var/log/app.log,', h)).toBe('/<*>,');
    expect(maskWord('/var/log/app.log,', { ...DEFAULT_HEURISTICS, pathFileName: false })).toBe('<*>,');
  });
});

describe('heuristics', () => {
  it('lists every choice once, as general, learned or a convention, with its default among its candidates', () => {
    const keys = Object.keys(DEFAULT_HEURISTICS).sort();
    expect([...GENERAL, ...LEARNED, ...CONVENTIONS].sort()).toEqual(keys);
    for (const key of CONVENTIONS) expect(DEFAULT_HEURISTICS[key]).toBe(false);
    expect(Object.keys(HEURISTIC_CANDIDATES).sort()).toEqual(keys);
    for (const key of keys as (keyof Heuristics)[]) {
      expect(HEURISTIC_CANDIDATES[key] as readonly unknown[]).toContain(DEFAULT_HEURISTICS[key]);
    }
    for (const key of GENERAL) expect(DEFAULT_HEURISTICS[key]).toBe(true);
  });

  it('refuses settings out of range', () => {
    expect(() => resolveHeuristics({ similarityThreshold: 1.5 })).toThrow(/similarityThreshold/);
    expect(() => resolveHeuristics({ maxWordFork: -1 })).toThrow(/maxWordFork/);
    expect(() => new TemplateMiner({ heuristics: { maxConstantFork: 1.5 } })).toThrow(/maxConstantFork/);
  });

  it('takes similarityThreshold from the miner option over the heuristics', () => {
    const lines = ['alpha beta gamma delta', 'alpha beta zeta eta'];
    const miner = new TemplateMiner({
      similarityThreshold: 0.5,
      heuristics: { similarityThreshold: 0.9, maxWordFork: 0 },
    });
    for (const l of lines) miner.add(l);
    expect(miner.groupCount).toBe(1);
  });
});
