import { describe, expect, it } from 'vitest';
import { EVAL_USAGE, parseEvalArgs } from '../../eval/cli-args.ts';

describe("npm run eval's command line", () => {
  it('answers --help and -h with the usage', () => {
    expect(parseEvalArgs(['--help'])).toEqual({ kind: 'help', text: EVAL_USAGE });
    expect(parseEvalArgs(['-h']).kind).toBe('help');
    for (const option of ['--workflow', '--cases', '--replay', '--record', '--time-scale'])
      expect(EVAL_USAGE).toContain(option);
  });

  it('names the nearest option for a mistyped one, in one line', () => {
    expect(parseEvalArgs(['--workflw', 'all'])).toEqual({
      kind: 'error',
      message: 'unknown option --workflw; did you mean --workflow? (--help lists them)',
    });
    expect(parseEvalArgs(['--iteration', '2'])).toMatchObject({
      message: expect.stringContaining('--iterations?'),
    });
    expect(parseEvalArgs(['--timescale=2'])).toMatchObject({
      message: expect.stringContaining('--time-scale?'),
    });
    const missing = parseEvalArgs(['--model']);
    expect(missing.kind).toBe('error');
    if (missing.kind === 'error') expect(missing.message).not.toContain('\n');
  });

  it('reads the options it knows, with their defaults', () => {
    const args = parseEvalArgs(['--workflow', 'bug_investigation', '--iterations', '3']);
    expect(args).toMatchObject({
      kind: 'run',
      values: { workflow: 'bug_investigation', iterations: '3', concurrency: '1', 'time-scale': '0.002' },
    });
  });
});
