/**
 * The optional model review of uncertain templates (lambdas/log-analysis/template-review.ts),
 * measured apart from the miner: `npm run bench:logs -- --review`. Each system's 2,000 lines
 * are mined, then reviewed again and again (at most `maxTemplates` per call, each template
 * asked about once thanks to the cache) until nothing is left to ask, and the bench prints the
 * calls, the tokens and GA/PA before and after. The model is the sandbox's offline demo model
 * (one rule: a word with a digit is a variable) behind the real Anthropic SDK client, so the
 * figures show the machinery and its costs, not what a real model would gain; set
 * `ANTHROPIC_BASE_URL` and `ANTHROPIC_API_KEY` (and `MODEL_ID`) to measure one.
 * Prints figures; asserts nothing.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAnthropicModel } from '../lambdas/adapters/anthropic-model.ts';
import { mineRecords } from '../lambdas/log-analysis/mine.ts';
import {
  reviewTemplates,
  type TemplateAdvisor,
  TemplateReviewCache,
} from '../lambdas/log-analysis/template-review.ts';
import { createDemoModelHandler, DEMO_MODEL_ID } from '../local/model/demo-model.ts';
import { readBody } from '../local/read-body.ts';
import { groupingAccuracy, parsingAccuracy, readSystem, SYSTEMS } from '../test/log-analysis/loghub.ts';

/** Calls per system at most, whatever is left to ask. */
const MAX_CALLS = 100;

const f4 = (n: number) => n.toFixed(4);
const row = (cells: string[], widths: number[]) =>
  cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ');

async function demoServer(): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const handle = createDemoModelHandler();
  const server = createServer((req, res) => {
    void readBody(req).then((body) => handle(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function reviewBench(): Promise<void> {
  const external =
    process.env.ANTHROPIC_BASE_URL !== undefined && process.env.ANTHROPIC_API_KEY !== undefined;
  const demo = external ? undefined : await demoServer();
  const modelId = external ? (process.env.MODEL_ID ?? 'claude-haiku-4-5') : DEMO_MODEL_ID;
  const client = createAnthropicModel({
    apiKey: process.env.ANTHROPIC_API_KEY ?? 'offline-demo',
    baseURL: demo?.baseUrl ?? (process.env.ANTHROPIC_BASE_URL as string),
    maxRetries: 2,
  });
  const advisor: TemplateAdvisor = async (prompt) => {
    const reply = await client.createMessage({
      model: modelId,
      max_tokens: 1024,
      messages: [{ role: 'user', content: prompt }],
    });
    const text = reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    return {
      text,
      usage: { inputTokens: reply.usage.input_tokens, outputTokens: reply.usage.output_tokens },
    };
  };
  console.log(`\nModel review of uncertain templates (at most 3 messages seen), model ${modelId}:\n`);
  const widths = [10, 6, 8, 9, 8, 8, 9, 9, 9, 9];
  console.log(
    row(
      ['system', 'calls', 'asked', 'applied', 'refused', 'in tok', 'out tok', 'GA', 'PA', 'PA after'],
      widths,
    ),
  );
  const sums = { pa: 0, after: 0, ga: 0, gaAfter: 0, calls: 0, input: 0, output: 0 };
  for (const system of SYSTEMS) {
    const lines = readSystem(system.name);
    const messages = lines.map((l) => l.content);
    const mined = mineRecords(messages.map((message) => ({ message })));
    const cache = new TemplateReviewCache();
    let calls = 0;
    let asked = 0;
    let input = 0;
    let output = 0;
    let review = await reviewTemplates(messages, mined, { advisor, cache });
    for (;;) {
      calls += review.calls;
      asked += review.asked;
      input += review.usage.inputTokens;
      output += review.usage.outputTokens;
      if (review.asked === 0 || calls >= MAX_CALLS) break;
      review = await reviewTemplates(messages, mined, { advisor, cache });
    }
    const truth = lines.map((l) => l.eventId);
    const trueTemplates = lines.map((l) => l.template);
    const ga = groupingAccuracy(truth, mined.templateIds);
    const gaAfter = groupingAccuracy(truth, review.mined.templateIds);
    const pa = parsingAccuracy(
      trueTemplates,
      mined.templateIds.map((id) => mined.text.get(id) ?? ''),
    );
    const after = parsingAccuracy(
      trueTemplates,
      review.mined.templateIds.map((id) => review.mined.text.get(id) ?? ''),
    );
    Object.assign(sums, {
      pa: sums.pa + pa,
      after: sums.after + after,
      ga: sums.ga + ga,
      gaAfter: sums.gaAfter + gaAfter,
      calls: sums.calls + calls,
      input: sums.input + input,
      output: sums.output + output,
    });
    console.log(
      row(
        [
          system.name,
          String(calls),
          String(asked),
          String(review.applied),
          String(review.refused),
          String(input),
          String(output),
          `${f4(ga)}${gaAfter === ga ? '' : `->${f4(gaAfter)}`}`,
          f4(pa),
          f4(after),
        ],
        widths,
      ),
    );
  }
  const n = SYSTEMS.length;
  console.log(
    row(
      [
        'all',
        String(sums.calls),
        '',
        '',
        '',
        String(sums.input),
        String(sums.output),
        `${f4(sums.ga / n)}->${f4(sums.gaAfter / n)}`,
        f4(sums.pa / n),
        f4(sums.after / n),
      ],
      widths,
    ),
  );
  console.log(
    "\n`applied` and `refused` are the last review's (answers used / refused by the checks against the messages); GA, PA: mean over the systems, before -> after.",
  );
  await demo?.close();
}
