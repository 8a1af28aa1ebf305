import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUG } from '../../local/github/demo-webshop.ts';
import { eventually } from '../support/eventually.ts';
import { type BugHarness, CHANNELS, DEVELOPER, REPORTER, startBugHarness } from './bug-harness.ts';

/**
 * What a newcomer does by hand in `npm run dev` without a model key (README, "Bug fixes as
 * pull requests"): the offline demo model reads demo/webshop, cites the planted bug, and
 * when a developer asks, the fix it finds by reading the code is built and opened as a PR.
 */

let h: BugHarness;
beforeAll(async () => {
  h = await startBugHarness(
    { bugInvestigation: { repository: 'demo/webshop' } },
    { model: 'demo', buildMemo: true },
  );
});
afterAll(() => h?.stop());

const waitFor = <T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string) =>
  eventually(probe, accept, what, 120_000);

describe('the offline demo model on demo/webshop', () => {
  it('cites the planted bug from the code, and fixes it as a draft PR when a developer asks', async () => {
    const at = `${DEMO_BUG.file}:${DEMO_BUG.line}`;
    await h.post(
      CHANNELS.reports,
      REPORTER,
      'Checkout totals are too high when I use a discount code: the VAT looks wrong, steps: add 2 T-shirts, apply SAVE10, region DE.',
    );
    const summaries = await waitFor(
      () => h.messages(CHANNELS.summaries),
      (all) => all.some((m) => m.bot && m.text.includes(at)),
      'findings citing the planted bug',
    );
    const findings = summaries.find((m) => m.bot && m.text.includes(at));
    expect(findings?.text).toContain('[offline demo model]');
    const thread = findings?.ts ?? '';

    await h.post(CHANNELS.summaries, DEVELOPER, 'Looks right, please fix it and open a PR', thread);
    const texts = await waitFor(
      async () => (await h.messages(CHANNELS.summaries, thread)).filter((m) => m.bot).map((m) => m.text),
      (all) => all.some((t) => t.includes('pull request')),
      'the outcome of the fix',
    );
    expect(texts.find((t) => t.includes('pull request'))).toContain('Draft pull request opened');
    const github = new Octokit({
      baseUrl: h.sandbox.github.apiUrl,
      auth: h.sandbox.github.createUserToken('demo-dev'),
    });
    const pulls = (await github.rest.pulls.list({ owner: 'demo', repo: 'webshop', state: 'open' })).data;
    expect(pulls).toHaveLength(1);
    const files = (
      await github.rest.pulls.listFiles({
        owner: 'demo',
        repo: 'webshop',
        pull_number: pulls[0]?.number ?? 0,
      })
    ).data;
    expect(files[0]?.patch).toContain('+  const vat = vatFor(net, options.region);');
  });
});
