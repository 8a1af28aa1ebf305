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
    'never mind, it works now',
    'nvm, fixed it',
    'Never mind, my bad!',
    'nevermind, found it. thanks',
    'false alarm, sorry',
    'close it, thanks!',
    'Not an issue anymore, thank you 🙏',
    'please ignore this',
    'ignore it, user error',
    'never mind — figured it out',
    "NVM it's fixed",
    'disregard this',
    'you can close this :pray:',
    'cancel this please',
    'Stop it. Works again, thanks',
    'never mind, it was my mistake',
    'It’s no longer an issue. Thanks a lot!',
  ])('takes %j as a wish to close', (text) => {
    expect(isCloseIntent(text)).toBe(true);
  });

  it.each([
    // each of these closed a bug report before.
    'never mind, it still crashes on Safari',
    'Stop! it now also deletes my cart',
    'Ignore this, the real error is a 500',
    'closing the modal crashes the tab',
    'close button does nothing',
    'the cancel flow is broken',
    'stopwatch widget shows NaN',
    'I never mind waiting, but it times out after 30s',
    'it stops working after login',
    'never mind the screenshot, the logs show a 502',
    "cancel doesn't work on the checkout page",
    'stop button is greyed out',
    'nvm, but now the login page is blank',
    'ignore my last message, it happens on Firefox too',
    'close this? it happens again every morning',
    'never mind. Also the search is slow',
    'Stop. The export deletes rows.',
    'nevermind, now I get error 403 after login',
    'cancel the order and the cart still charges',
    'please close this tab and reopen, it crashes',
    'not an issue anymore on Chrome, but Safari still crashes',
    'ignore this, it works now on mobile but desktop fails',
    'never mind, fixed it, but the invoice PDF is empty now',
    'false alarm on staging; production still returns 500',
    '',
  ])('takes %j as part of the conversation', (text) => {
    expect(isCloseIntent(text)).toBe(false);
  });
});
