import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchConsoleBrowser, releaseConsoleBrowser, watchForStalls } from './browser.ts';

/**
 * The browser tests' watchdog: Playwright's actions have no time limit of their own, so a page
 * where nothing moves is closed, failing the pending action with the reason; a page that keeps
 * changing is left alone however long the wait.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launchConsoleBrowser();
});
afterAll(() => releaseConsoleBrowser(browser));

describe('a console page where nothing moves', () => {
  it('fails the pending action with the reason', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(0);
    await watchForStalls(page, 1_000);
    await page.goto('data:text/html,<p>still</p>');
    await expect(page.locator('#never').waitFor()).rejects.toThrow(
      'no progress for 1000 ms: neither the sandbox nor the page changed',
    );
    await context.close();
  });

  it('lets a page that keeps changing wait past the stall period', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(0);
    await watchForStalls(page, 1_000);
    // The page counts up every 100 ms and shows #done at 40: four stall periods at least.
    await page.goto(
      `data:text/html,<p id="n">0</p><script>let i=0;const t=setInterval(()=>{i+=1;document.getElementById('n').textContent=String(i);if(i===40){clearInterval(t);const d=document.createElement('p');d.id='done';document.body.append(d);}},100)</script>`,
    );
    await page.locator('#done').waitFor({ state: 'attached' });
    expect(await page.locator('#n').textContent()).toBe('40');
    await context.close();
  });
});
