import { Octokit } from '@octokit/rest';
import { describe, expect, it } from 'vitest';
import { withRedaction } from '../../lambdas/adapters/github-redaction.ts';
import { redactingModel } from '../../lambdas/adapters/redacting-model.ts';
import type { MessageCreateParamsNonStreaming, ModelClient } from '../../lambdas/agents/ports.ts';
import { inConversation, RedactionSettings, Redactor } from '../../lambdas/redaction/index.ts';
import { fakeValues, grouped } from './fake-values.ts';

/**
 * Every door keys its placeholders by the conversation its caller works for, whatever the door
 * itself knows: the model client knows no conversation, the Octokit hook an issue.
 */

const v = fakeValues();
const SETTINGS = RedactionSettings.parse({ pii: ['email', 'card'] });
const TEXT = `mail ${v.email}, card ${v.card}`;

/** The model door's request, as the provider would get it. */
async function throughModel(): Promise<string> {
  let sent: MessageCreateParamsNonStreaming | undefined;
  const provider: ModelClient = {
    async createMessage(params) {
      sent = params;
      return { content: [] } as unknown as Awaited<ReturnType<ModelClient['createMessage']>>;
    },
  };
  await redactingModel(provider, SETTINGS, 'model').createMessage({
    model: 'm',
    max_tokens: 1,
    messages: [{ role: 'user', content: TEXT }],
  });
  return JSON.stringify(sent?.messages);
}

/** The GitHub door's comment body, as the API gets it (a fetch that answers in place of GitHub). */
async function throughGitHub(): Promise<string> {
  let body = '';
  const fetch = async (_url: unknown, init?: { body?: unknown }) => {
    body = String(init?.body ?? '');
    return new Response('{}', { status: 201, headers: { 'content-type': 'application/json' } });
  };
  const octokit = withRedaction(
    new Octokit({ baseUrl: 'http://github.invalid', request: { fetch } }),
    SETTINGS,
  );
  await octokit.rest.issues.createComment({ owner: 'demo', repo: 'shop', issue_number: 7, body: TEXT });
  return body;
}

describe('placeholder tags', () => {
  it("are the conversation's at the model and GitHub doors, as in the turn's own prompt", async () => {
    const turn = (await new Redactor('conv-a', SETTINGS).redact(TEXT)).text;
    expect(turn).toMatch(/^mail <pii:email#\w{4}>, card <pii:card#\w{4}>$/);

    expect(await inConversation('conv-a', throughModel)).toContain(turn);
    expect(await inConversation('conv-a', throughGitHub)).toContain(turn);
    expect(await inConversation('conv-b', throughModel)).not.toContain(turn);
  });

  it('are keyed by what the door knows when no conversation is around it', async () => {
    const byFunction = (await new Redactor('model', SETTINGS).redact(TEXT)).text;
    expect(await throughModel()).toContain(byFunction);
  });

  it('are the same for a card printed in groups or not', async () => {
    const redactor = new Redactor('conv-a', SETTINGS);
    const unbroken = (await redactor.redact(v.card)).text;
    expect((await redactor.redact(grouped(v.card))).text).toBe(unbroken);
  });
});
