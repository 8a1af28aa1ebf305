import { describe, expect, it } from 'vitest';
import { isCloseIntent } from '../../lambdas/kernel/close-intent.ts';

describe('close intent', () => {
  it.each([
    'never mind',
    'Nevermind!',
    'nvm',
    'close this',
    'please close this',
    'Close the bug.',
    'cancel',
    'stop',
    "it's not an issue anymore",
    'no longer an issue',
    'ignore this, it works now',
  ])('takes %j as a wish to close', (text) => {
    expect(isCloseIntent(text)).toBe(true);
  });

  it.each([
    'closing the modal crashes the tab',
    'close button does nothing',
    'the cancel flow is broken',
    'stopwatch widget shows NaN',
    'I never mind waiting, but it times out after 30s',
    'it stops working after login',
  ])('takes %j as part of the conversation', (text) => {
    expect(isCloseIntent(text)).toBe(false);
  });
});
