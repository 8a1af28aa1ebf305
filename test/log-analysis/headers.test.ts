import { describe, expect, it } from 'vitest';
import { InvalidLogInputError } from '../../lambdas/log-analysis/errors.ts';
import { parseInput, parseLine } from '../../lambdas/log-analysis/headers.ts';

describe('parseLine', () => {
  it('reads an ISO timestamp (no zone means UTC) and a level word', () => {
    expect(parseLine('2015-10-18 18:01:47,978 WARN [main] queue is slow')).toMatchObject({
      time: Date.parse('2015-10-18T18:01:47.978Z'),
      level: 'warn',
      message: '[main] queue is slow',
    });
  });

  it('reads a dash-separated level after the time', () => {
    expect(
      parseLine('2015-07-29 17:41:44,747 - INFO  [Q:F@774] - Notification time out: 3200'),
    ).toMatchObject({
      level: 'info',
      message: '[Q:F@774] - Notification time out: 3200',
    });
  });

  it('reads a syslog header: time in the given year, the program as the service', () => {
    expect(
      parseLine('Dec 10 06:55:46 LabSZ sshd[24200]: Invalid user test from 1.2.3.4', { year: 2024 }),
    ).toMatchObject({
      time: Date.parse('2024-12-10T06:55:46Z'),
      service: 'sshd',
      message: 'Invalid user test from 1.2.3.4',
    });
  });

  it('reads an Apache bracketed time and level', () => {
    expect(parseLine('[Sun Dec 04 04:47:44 2005] [error] mod_jk child in error state 6')).toMatchObject({
      time: Date.parse('2005-12-04T04:47:44Z'),
      level: 'error',
      message: 'mod_jk child in error state 6',
    });
  });

  it('reads a JSON line: message, level, service, time and its fields', () => {
    const record = parseLine(
      '{"time":"2024-01-01T00:00:00Z","level":"ERROR","service":"api","msg":"boom","trace_id":"t1"}',
    );
    expect(record).toMatchObject({
      time: Date.parse('2024-01-01T00:00:00Z'),
      level: 'error',
      service: 'api',
      message: 'boom',
    });
    expect(record.fields?.trace_id).toBe('t1');
  });

  it("reads AWS Lambda's Node and Python lines, with the request id as a field", () => {
    const node = parseLine(
      '2024-05-01T10:00:00.123Z\t8f5c2a4e-1b2c-4d5e-9f00-0123456789ab\tERROR\tInvoke Error boom',
    );
    expect(node).toMatchObject({
      time: Date.parse('2024-05-01T10:00:00.123Z'),
      level: 'error',
      message: 'Invoke Error boom',
    });
    expect(node.fields).toEqual({ request_id: '8f5c2a4e-1b2c-4d5e-9f00-0123456789ab' });
    const python = parseLine(
      '[WARNING]\t2024-05-01T10:00:00.123Z\t8f5c2a4e-1b2c-4d5e-9f00-0123456789ab\tslow call',
    );
    expect(python).toMatchObject({ level: 'warn', message: 'slow call' });
  });

  it('reads a level= field when the header names no level', () => {
    expect(parseLine('ts=1 level=error msg="db down"').level).toBe('error');
  });

  it('keeps a capitalized first word that is not written as a level', () => {
    expect(parseLine('2024-01-01T00:00:00Z Error connecting to db')).toMatchObject({
      level: 'unknown',
      message: 'Error connecting to db',
    });
  });

  it('reads a line with no header as the whole message', () => {
    expect(parseLine('just words')).toEqual({
      level: 'unknown',
      service: 'unknown',
      message: 'just words',
      raw: 'just words',
    });
  });

  it('reads a line that starts with a brace but is not JSON as text', () => {
    expect(parseLine('{not json} here').message).toBe('{not json} here');
  });
});

describe('parseInput', () => {
  it('takes CloudWatch events (time from the event, service from the stream) and text lines together', () => {
    const records = parseInput([
      { timestamp: 1_700_000_000_000, message: 'ERROR db down', logStreamName: 'api/1' },
      'plain',
    ]);
    expect(records[0]).toMatchObject({
      time: 1_700_000_000_000,
      service: 'api/1',
      level: 'error',
      message: 'db down',
    });
    expect(records[1]).toMatchObject({ message: 'plain', service: 'unknown' });
  });

  it('rejects input that is neither events nor lines, with a named error', () => {
    expect(() => parseInput([{ message: 'no timestamp' }])).toThrow(InvalidLogInputError);
    expect(() => parseInput('not an array')).toThrow(/invalid log input/);
  });
});
