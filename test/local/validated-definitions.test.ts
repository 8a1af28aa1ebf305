import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StateMachineDefinition } from 'aws-local-stepfunctions';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateOnce, validationKey } from '../../local/stepfunctions/validated-definitions.ts';

/** Where validations are remembered. */
type ValidationMemory = NonNullable<Parameters<typeof validateOnce>[2]>;

const VALID = { StartAt: 'Done', States: { Done: { Type: 'Succeed' } } };
// `Next` names a state that does not exist.
const INVALID = { StartAt: 'First', States: { First: { Type: 'Pass', Next: 'Nowhere' } } };

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'validated-'));
  // Each case starts as a new process would: nothing validated in memory.
  delete (globalThis as Record<symbol, unknown>)[
    Symbol.for('slack-agent-workflows.local.validated-definitions')
  ];
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

function validate(definition: object, memory: ValidationMemory = { directory }) {
  // A fresh copy each time, as a new registration would parse it (the validator annotates states).
  const text = JSON.stringify(definition);
  validateOnce(text, JSON.parse(text) as StateMachineDefinition, memory);
}

describe('state machine definitions validated once', () => {
  it('remembers a valid definition for later processes under its key', () => {
    validate(VALID);
    expect(readdirSync(directory)).toEqual([validationKey(JSON.stringify(VALID))]);
  });

  it('refuses an invalid definition every time and remembers nothing of it', () => {
    expect(() => validate(INVALID)).toThrow(/Nowhere|transition|Next/i);
    expect(() => validate(INVALID)).toThrow(/Nowhere|transition|Next/i);
    expect(readdirSync(directory)).toEqual([]);
  });

  it('does not validate again what an earlier process remembered as valid', () => {
    // What only a remembered success explains: the validator would refuse this text.
    writeFileSync(join(directory, validationKey(JSON.stringify(INVALID))), '');
    expect(() => validate(INVALID)).not.toThrow();
  });

  it('keys on the text: another definition is validated for itself', () => {
    validate(VALID);
    expect(() => validate(INVALID)).toThrow();
    expect(validationKey(JSON.stringify(VALID))).not.toBe(validationKey(JSON.stringify(INVALID)));
  });

  it('works without a directory (memory in this process only) and in one it cannot write', () => {
    expect(() => validate(VALID, { directory: false })).not.toThrow();
    writeFileSync(join(directory, 'not-a-directory'), '');
    expect(() =>
      validate({ ...VALID, Comment: 'x' }, { directory: join(directory, 'not-a-directory') }),
    ).not.toThrow();
    expect(existsSync(join(directory, 'not-a-directory'))).toBe(true);
  });
});
