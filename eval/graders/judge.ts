import Anthropic from '@anthropic-ai/sdk';
import type { Check } from '../types.ts';

/**
 * The LLM judge, used only where code cannot decide (answer quality, a PRD against its
 * rubric, a reviewer's rejections). It needs a real model: ANTHROPIC_API_KEY, at
 * EVAL_JUDGE_BASE_URL or ANTHROPIC_BASE_URL when set (EVAL_JUDGE_API_KEY and EVAL_JUDGE_MODEL
 * override the key and the model; EVAL_JUDGE=off turns it off). Without one, nothing is judged
 * and the report says so; a judged check never passes by default.
 */

// Read once at load: the sandbox later writes its own (fake) model settings into the environment.
const ENV = {
  model: process.env.EVAL_JUDGE_MODEL,
  baseUrl: process.env.EVAL_JUDGE_BASE_URL ?? process.env.ANTHROPIC_BASE_URL,
  key: process.env.EVAL_JUDGE_API_KEY ?? process.env.ANTHROPIC_API_KEY,
  off: process.env.EVAL_JUDGE === 'off',
};

export const JUDGE_MODEL = ENV.model ?? 'claude-sonnet-5-5';

export const JUDGE_PROMPT = `You grade one answer of an AI agent against a rubric. Be strict: an item is met only if the answer clearly does it; vague or partial coverage does not count.
Reply with JSON only: {"items":[{"item":"<rubric item>","met":true|false,"why":"<one sentence>"}],"pass":true|false}
"pass" is true only if every item is met.`;

export interface JudgeInput {
  task: string;
  context: string;
  answer: string;
  rubric: string[];
}

export interface JudgeVerdict {
  pass: boolean;
  reason: string;
  items: { item: string; met: boolean; why: string }[];
}

export function judgeAvailable(): boolean {
  return !ENV.off && Boolean(ENV.baseUrl || ENV.key);
}

export function judgeMessage(input: JudgeInput): string {
  return [
    `Task of the agent: ${input.task}`,
    `Context:\n${input.context}`,
    `Answer:\n${input.answer}`,
    `Rubric:\n${input.rubric.map((r, i) => `${i + 1}. ${r}`).join('\n')}`,
  ].join('\n\n');
}

/** Parses the judge's reply; a reply that is not the asked JSON fails the check with the reason. */
export function parseJudgeReply(text: string, rubric: readonly string[]): JudgeVerdict {
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  try {
    const parsed = JSON.parse(json ?? '') as { items?: { item?: string; met?: boolean; why?: string }[] };
    const items = (parsed.items ?? []).map((i) => ({
      item: String(i.item ?? ''),
      met: i.met === true,
      why: String(i.why ?? ''),
    }));
    if (items.length !== rubric.length)
      return { pass: false, reason: `the judge graded ${items.length} of ${rubric.length} items`, items };
    const missed = items.filter((i) => !i.met);
    return {
      pass: missed.length === 0,
      reason:
        missed.length === 0
          ? `all ${items.length} rubric items met`
          : `not met: ${missed.map((m) => `${m.item} (${m.why})`).join('; ')}`,
      items,
    };
  } catch {
    return {
      pass: false,
      reason: `the judge's reply is not the asked JSON: ${text.slice(0, 200)}`,
      items: [],
    };
  }
}

/** How the judge is reached: the system prompt and the message in, the reply's text out. */
export type JudgeTransport = (system: string, message: string) => Promise<string>;

/** The configured judge model, or undefined when there is none (EVAL_JUDGE=off, or no key and no URL). */
export function configuredJudge(): JudgeTransport | undefined {
  if (!judgeAvailable()) return undefined;
  const client = new Anthropic({
    // Explicit: the SDK would otherwise read ANTHROPIC_BASE_URL, which the sandbox points at its own model front.
    baseURL: ENV.baseUrl ?? 'https://api.anthropic.com',
    apiKey: ENV.key ?? 'none',
    maxRetries: 2,
  });
  return async (system, message) => {
    const reply = await client.messages.create({
      model: JUDGE_MODEL,
      max_tokens: 1024,
      system,
      messages: [{ role: 'user', content: message }],
    });
    return reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  };
}

/** The judge's verdict on `input`; a judge that cannot be reached gives a failed verdict saying so. */
export async function judge(
  input: JudgeInput,
  transport: JudgeTransport,
): Promise<JudgeVerdict & { judged: boolean }> {
  let text: string;
  try {
    text = await transport(JUDGE_PROMPT, judgeMessage(input));
  } catch (error) {
    return {
      pass: false,
      judged: false,
      reason: `not judged: the judge failed: ${error instanceof Error ? error.message : String(error)}`,
      items: [],
    };
  }
  return { ...parseJudgeReply(text, input.rubric), judged: true };
}

/**
 * One judged check: passes only when a judge was reached and found every rubric item met. No
 * judge (`transport` undefined), or one that cannot be reached, fails it as *not judged*.
 */
export async function judgedCheck(
  name: string,
  input: JudgeInput,
  transport: JudgeTransport | undefined,
): Promise<Check> {
  if (transport === undefined) return { name, pass: false, detail: 'not judged: no judge model' };
  const verdict = await judge(input, transport);
  return { name, pass: verdict.pass, detail: verdict.reason };
}
