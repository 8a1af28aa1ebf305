import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSandboxLog, installTerminalLog, parseLogFormat } from '../../local/terminal-log.ts';

const RECORD = {
  level: 'WARN',
  message: 'agent turn failed: escalating',
  timestamp: '2015-11-23T19:41:56.123Z',
  service: 'agent-turn',
  sampling_rate: 0,
  xray_trace_id: 'Root=1-abc',
  profile: 'bug_investigator',
  conversationId: 'c-1',
  error: 'the model API answered HTTP 500 api_error: boom',
};

/** A fake console recording what each method was called with. */
function recordingConsole() {
  const calls: [string, unknown[]][] = [];
  const method =
    (name: string) =>
    (...args: unknown[]) => {
      calls.push([name, args]);
    };
  return {
    calls,
    target: {
      debug: method('debug'),
      info: method('info'),
      warn: method('warn'),
      error: method('error'),
      log: method('log'),
    },
  };
}

/**
 * What the terminal shows when a handler logs `record` as Powertools does (its JSON, pretty
 * or not, as the one argument of console.warn): the one line the installed format prints.
 */
function lineFor(
  record: Record<string, unknown>,
  options: { color?: boolean; indent?: number } = {},
): unknown {
  const { calls, target } = recordingConsole();
  const uninstall = installTerminalLog({ format: 'line', color: options.color ?? false, target });
  try {
    target.warn(JSON.stringify(record, null, options.indent));
  } finally {
    uninstall();
  }
  expect(calls).toHaveLength(1);
  expect(calls[0]?.[0]).toBe('warn');
  expect(calls[0]?.[1]).toHaveLength(1);
  return calls[0]?.[1][0];
}

/** What the terminal shows for console.warn(...args): the arguments it passes on. */
function passedOn(...args: unknown[]): unknown[] | undefined {
  const { calls, target } = recordingConsole();
  installTerminalLog({ format: 'line', target });
  target.warn(...args);
  expect(calls).toHaveLength(1);
  return calls[0]?.[1];
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('one line per log record', () => {
  it('shows time, level, function, message and the key fields, conversation first, hiding Powertools noise', () => {
    expect(lineFor(RECORD)).toBe(
      '19:41:56.123 WARN  agent-turn         agent turn failed: escalating conversationId=c-1 profile=bug_investigator error="the model API answered HTTP 500 api_error: boom"',
    );
  });

  it('shows an error object as name and message, and objects as compact JSON on the same line', () => {
    const line = lineFor({
      level: 'ERROR',
      message: 'Router failed\nto route',
      timestamp: '2015-11-23T08:00:00.000Z',
      service: 'router',
      error: {
        name: 'RouteError',
        location: 'x.ts:1',
        message: 'no workflow',
        stack: 'RouteError: no workflow\n  at x',
      },
      envelope: { kind: 'message', ts: '1.2' },
    });
    expect(line).toBe(
      '08:00:00.000 ERROR router             Router failed to route error="RouteError: no workflow" envelope={"kind":"message","ts":"1.2"}',
    );
    expect(line).not.toContain('\n');
  });

  it('cuts long values and lists at most eight fields, counting the rest', () => {
    const fields = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, i]));
    const line = lineFor({ ...RECORD, error: 'x'.repeat(500), ...fields });
    expect(line).toContain(`error=${'x'.repeat(119)}…`);
    expect(line).toMatch(/ \+6 more$/);
  });

  it('colours WARN and ERROR when asked (a terminal), not otherwise', () => {
    expect(lineFor(RECORD, { color: true })).toContain('\u001b[33mWARN \u001b[0m');
    expect(lineFor({ ...RECORD, level: 'INFO' }, { color: true })).not.toContain('\u001b[');
  });

  it('recognises Powertools records only', () => {
    expect(lineFor(RECORD, { indent: 4 })).toBe(lineFor(RECORD));
    expect(lineFor(RECORD)).toMatch(/^19:41:56\.123 WARN {2}agent-turn /);
    expect(passedOn('{"hello":1}')).toEqual(['{"hello":1}']);
    expect(passedOn('{not json')).toEqual(['{not json']);
    const untimed = '{"level":"INFO","message":"no timestamp"}';
    expect(passedOn(untimed)).toEqual([untimed]);
    expect(passedOn('[sandbox] request failed')).toEqual(['[sandbox] request failed']);
    expect(passedOn(42)).toEqual([42]);
  });
});

describe('SANDBOX_LOG_FORMAT', () => {
  it('is line by default, json on request, and refuses anything else by name', () => {
    expect(parseLogFormat(undefined)).toBe('line');
    expect(parseLogFormat('')).toBe('line');
    expect(parseLogFormat('JSON')).toBe('json');
    expect(() => parseLogFormat('pretty')).toThrow(
      expect.objectContaining({
        name: 'InvalidLogFormatError',
        message: expect.stringMatching(/SANDBOX_LOG_FORMAT must be one of line, json, got "pretty"/),
      }),
    );
  });

  it("turns a real Powertools logger's pretty JSON into one line, passing other output through", () => {
    vi.stubEnv('POWERTOOLS_DEV', 'true');
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
    const { calls, target } = recordingConsole();
    const uninstall = installTerminalLog({ format: 'line', target });
    // Powertools prints through the global console in dev mode: route it to the fake.
    const spies = (['info', 'warn'] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation((...args: unknown[]) => target[m](...args)),
    );
    try {
      const logger = new Logger({ serviceName: 'drain' });
      logger.warn('could not add to the ledger', { conversationId: 'c-9' });
      target.error('[sandbox] request failed', new Error('x'));
    } finally {
      for (const spy of spies) spy.mockRestore();
      uninstall();
    }
    expect(calls[0]?.[0]).toBe('warn');
    expect(calls[0]?.[1]).toHaveLength(1);
    expect(String(calls[0]?.[1][0])).toMatch(
      /^\d{2}:\d{2}:\d{2}\.\d{3} WARN {2}drain +could not add to the ledger conversationId=c-9$/,
    );
    expect(calls[1]).toEqual(['error', ['[sandbox] request failed', new Error('x')]]);
  });

  it('json leaves the records as Powertools prints them', () => {
    const { calls, target } = recordingConsole();
    installTerminalLog({ format: 'json', target })();
    const pretty = JSON.stringify(RECORD, null, 4);
    target.warn(pretty);
    expect(calls).toEqual([['warn', [pretty]]]);
  });
});

describe("the sandbox's own warnings", () => {
  it('print a Lambda failure at WARN with the error, unless the level is above WARN', () => {
    const { calls, target } = recordingConsole();
    // As in the sandbox: its log writes to the console the terminal format is installed on.
    const uninstall = installTerminalLog({ format: 'line', target });
    const now = () => new Date('2015-11-23T10:00:00.000Z');
    try {
      createSandboxLog({ level: 'INFO', now, target }).warn('Lambda AgentTurn failed', {
        error: new TypeError('boom'),
      });
      createSandboxLog({ level: 'SILENT', now, target }).warn('not shown');
      createSandboxLog({ level: 'ERROR', now, target }).warn('not shown either');
    } finally {
      uninstall();
    }
    expect(calls).toEqual([
      ['warn', ['10:00:00.000 WARN  sandbox            Lambda AgentTurn failed error="TypeError: boom"']],
    ]);
  });
});
