import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordingJudge, replayJudge } from '../../eval/graders/judge-recording.ts';
import {
  anthropicModelOf,
  type Exchange,
  evidenceTexts,
  keyOf,
  laneOf,
  readRecording,
  startModelProxy,
  usageOf,
} from '../../eval/model-proxy.ts';
import { sessionModelEnv } from '../../eval/session.ts';
import { DEMO_MODEL_ID } from '../../local/model/demo-model.ts';
import { DEMO_MODEL_PRICE_ENV } from '../../local/sandbox-models.ts';
import { startScriptedModel, text, toolUse } from '../support/scripted-model.ts';

const request = (question: string, tool = 'submit_result') => ({
  model: 'claude-sonnet-5-5',
  max_tokens: 100,
  tools: [
    { name: 'query_logs', input_schema: { type: 'object' } },
    { name: tool, input_schema: { type: 'object' } },
  ],
  messages: [{ role: 'user', content: question }],
});

async function ask(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'secret-key-not-kept' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

const dir = await mkdtemp(join(tmpdir(), 'eval-proxy-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the model proxy', () => {
  it("replays an answer citing a Slack message with the replayed run's id for it", async () => {
    const recorded = request('fix it, asked in message 1001100100.000200');
    const recording = {
      model: 'm',
      judge: [],
      exchanges: [
        {
          lane: laneOf(recorded),
          key: keyOf(recorded),
          request: recorded,
          status: 200,
          response: {
            content: [
              { type: 'tool_use', name: 'submit_result', input: { fix_request: '1001100100.000200' } },
            ],
          },
        },
      ],
    };
    const replay = await startModelProxy({ replay: recording });
    const answer = await ask(replay.url, request('fix it, asked in message 1002200200.000900'));
    expect(JSON.stringify(answer.json)).toContain('"fix_request":"1002200200.000900"');
    expect(JSON.stringify(answer.json)).not.toContain('1001100100.000200');
    await replay.close();
  });

  it('maps ids built from a Slack id, and learns them from a request matched by its lane only', async () => {
    const recorded = request(
      'bug bug-investigation-C_BUGS-1001100100-000200 at 09:00, session 0f1e2d3c-aaaa-4bbb-8ccc-123456789abc',
    );
    const call = {
      type: 'tool_use',
      name: 'get_bug_conversations',
      input: { bug_id: 'bug-investigation-C_BUGS-1001100100-000200' },
    };
    const replay = await startModelProxy({
      replay: {
        model: 'm',
        judge: [],
        exchanges: [
          {
            lane: laneOf(recorded),
            key: 'a key of an older format',
            request: recorded,
            status: 200,
            response: { content: [call] },
          },
        ],
      },
    });
    const answer = await ask(
      replay.url,
      request(
        'bug bug-investigation-C_BUGS-1002200200-000900 at 10:30, session 99999999-bbbb-4ccc-8ddd-fedcba987654',
      ),
    );
    expect(JSON.stringify(answer.json)).toContain('bug-investigation-C_BUGS-1002200200-000900');
    expect(replay.misses).toEqual([]);
    await replay.close();
  });

  it("keeps the judge's exchanges with the recording and answers the judge from them on replay", async () => {
    const kept: Exchange[] = [];
    const live = recordingJudge(async () => '{"items":[],"pass":true}', kept);
    expect(await live('system', 'grade the answer of 14:02')).toBe('{"items":[],"pass":true}');
    const replayed = replayJudge(kept, undefined);
    expect(await replayed?.('system', 'grade the answer of 15:07')).toBe('{"items":[],"pass":true}');
    await expect(replayed?.('system', 'another message')).rejects.toThrow(/no recorded judge answer/);
    expect(replayJudge([], undefined)).toBeUndefined();
  });

  it('records live exchanges without headers, and replays them by request whatever the order', async () => {
    const model = await startScriptedModel({
      steps: [text('first answer'), toolUse('query_logs', { service: 'x' })],
    });
    const live = await startModelProxy({ upstream: model.baseUrl });
    const a = await ask(live.url, request('what failed at 14:02?'));
    const b = await ask(live.url, request('and the deploy?'));
    expect(usageOf(live.exchanges)).toMatchObject({ modelCalls: 2, toolCalls: 1 });
    const path = join(dir, 'case.1.jsonl');
    live.save(path, 'claude-sonnet-5-5');
    await live.close();
    await model.close();
    expect(await readFile(path, 'utf8')).not.toContain('secret-key-not-kept');

    const recording = readRecording(path);
    expect(recording.model).toBe('claude-sonnet-5-5');
    const replay = await startModelProxy({ replay: recording });
    // The digits differ (times move between runs) and the order is reversed: each still gets its answer.
    expect(await ask(replay.url, request('and the deploy?'))).toEqual(b);
    expect(await ask(replay.url, request('what failed at 15:07?'))).toEqual(a);
    const missed = await ask(replay.url, request('a third question', 'submit_other'));
    expect(missed.status).toBe(500);
    expect(replay.misses).toEqual(['submit_other']);
    await replay.close();
  });

  it('finds the text each evidence id was shown with', () => {
    const exchanges = [
      {
        lane: 'x',
        key: 'k',
        status: 200,
        response: {},
        request: {
          messages: [
            { role: 'user', content: [{ type: 'tool_result', content: 'Cite it as ev-3. 41 timeouts' }] },
          ],
        },
      },
    ];
    expect(evidenceTexts(exchanges).get('ev-3')).toContain('41 timeouts');
  });
});

describe('Bedrock model ids', () => {
  it('are sent to the Messages API under their Anthropic name', () => {
    expect(anthropicModelOf('global.anthropic.claude-sonnet-5-5')).toBe('claude-sonnet-5-5');
    expect(anthropicModelOf('anthropic.claude-haiku-4-5-v1:0')).toBe('claude-haiku-4-5');
    expect(anthropicModelOf('claude-sonnet-5-5')).toBe('claude-sonnet-5-5');
  });
});

describe("a session's model price", () => {
  it('prices the offline demo model at $0 live and in a replay of its recording, and leaves other models to the stack', () => {
    const priced = (env: Record<string, string>) => Object.keys(DEMO_MODEL_PRICE_ENV).every((k) => k in env);
    expect(priced(sessionModelEnv('demo', 'http://proxy', undefined))).toBe(true);
    expect(priced(sessionModelEnv('replay', 'http://proxy', undefined, DEMO_MODEL_ID))).toBe(true);
    expect(priced(sessionModelEnv('replay', 'http://proxy', undefined, 'claude-sonnet-5-5'))).toBe(false);
    expect(priced(sessionModelEnv('live', 'http://proxy', 'key'))).toBe(false);
  });
});
