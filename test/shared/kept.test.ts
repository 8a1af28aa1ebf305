import { describe, expect, it } from 'vitest';
import { conversationInScope, inConversation } from '../../lambdas/redaction/conversation-scope.ts';
import { keptOn, processStorage } from '../../lambdas/shared/kept.ts';

/**
 * A module evaluated a second time in the same process (a sandbox renewing its handlers, a test
 * worker resetting its modules) finds the storages the first evaluation made: no new storage per
 * evaluation, whose cost every later promise of the process would pay.
 */

type ScopeModule = typeof import('../../lambdas/redaction/conversation-scope.ts');
type StorageModule = typeof import('../../lambdas/shared/kept.ts');

/** The module evaluated anew: a query makes another module instance of the same file. */
async function evaluatedAgain<T>(path: string, evaluation: string): Promise<T> {
  return (await import(/* @vite-ignore */ `${path}?evaluation=${evaluation}`)) as T;
}

describe('processStorage', () => {
  it('gives every evaluation of a module the same storage of a name, and another name another storage', async () => {
    const again = await evaluatedAgain<StorageModule>('../../lambdas/shared/kept.ts', 'second');
    expect(again.processStorage).not.toBe(processStorage);
    expect(again.processStorage('a-name')).toBe(processStorage('a-name'));
    expect(processStorage('another-name')).not.toBe(processStorage('a-name'));
  });

  it('lets a second evaluation of the conversation scope read the conversation the first one set', async () => {
    const again = await evaluatedAgain<ScopeModule>(
      '../../lambdas/redaction/conversation-scope.ts',
      'second',
    );
    expect(again.inConversation).not.toBe(inConversation);
    const seen = await inConversation('C_FIRST', async () => {
      await Promise.resolve();
      return again.conversationInScope();
    });
    expect(seen).toBe('C_FIRST');
    expect(again.inConversation('C_SECOND', () => conversationInScope())).toBe('C_SECOND');
    expect(conversationInScope()).toBeUndefined();
  });
});

describe('keptOn', () => {
  it('gives every evaluation the value the first made for an owner, and each owner its own', async () => {
    const again = await evaluatedAgain<StorageModule>('../../lambdas/shared/kept.ts', 'owners');
    const first = {};
    const second = {};
    let made = 0;
    const make = () => ({ serial: ++made });
    const value = keptOn(first, 'a-value', make);
    expect(again.keptOn(first, 'a-value', make)).toBe(value);
    expect(again.keptOn(second, 'a-value', make)).not.toBe(value);
    expect(made).toBe(2);
    expect(Object.keys(first)).toEqual([]);
  });
});
