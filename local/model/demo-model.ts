import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { DemoAgent } from '../../statemachines/demo/agents.ts';
import { DEMO_LABEL, userTexts } from '../../statemachines/demo/text.ts';
import type { SandboxDeclarations } from '../../statemachines/module-sandbox.ts';
import { demoTemplateReview, isTemplateReview } from './demo-templates.ts';
import {
  isMessagesCall,
  type ModelReply,
  parseMessagesRequest,
  sendReply,
  systemText,
} from './messages-wire.ts';

/**
 * The offline demo model: what `npm run dev` talks to without model credentials, behind the
 * same Messages API as Anthropic's. It is no AI: a few deterministic rules per agent, told
 * apart by the request's system prompt (the profile's), and everything it writes starts with
 * `[offline demo model]`. Which agents it plays, and their rules, the workflow modules declare
 * (`demoAgents`, statemachines/module-sandbox.ts): it knows no workflow of its own.
 */

export const DEMO_MODEL_ID = 'offline-demo-model';

/** What the demo model says where it plays no agent (a channel conversation): for people, no agent names. */
export const DEMO_CHANNEL_ANSWER =
  'I cannot answer questions here: this sandbox runs without a real model. The workflows (bug reports, incidents, /prd interviews, issues) still run offline. Set ANTHROPIC_API_KEY for real answers.';

/** The demo model's answer to one Messages API request. */
function demoReply(request: MessageCreateParamsNonStreaming, agents: readonly DemoAgent[] = []): ModelReply {
  const system = systemText(request);
  const agent = agents.find((candidate) => candidate.system === system);
  if (agent) return agent.play(request);
  // The log template review of query_logs (an option of the telemetry configuration).
  const prompt = userTexts(request).at(-1) ?? '';
  if (isTemplateReview(prompt))
    return {
      kind: 'message',
      content: [{ type: 'text', text: demoTemplateReview(prompt) }],
      stopReason: 'end_turn',
    };
  // Not one of the agents (e.g. a channel conversation's answer): say so, in plain text.
  return {
    kind: 'message',
    content: [
      {
        type: 'text',
        text: `${DEMO_LABEL} ${DEMO_CHANNEL_ANSWER}`,
      },
    ],
    stopReason: 'end_turn',
  };
}

/** The agents the modules declare, in the modules' order (the first of a system prompt plays it). */
async function demoAgentsOf(modules: readonly SandboxDeclarations[]): Promise<DemoAgent[]> {
  const declared = await Promise.all(modules.map((module) => module.demoAgents?.() ?? {}));
  return declared.flatMap((agents) => Object.values(agents));
}

/**
 * `POST .../v1/messages` for the sandbox: mount it under any prefix and point
 * `ANTHROPIC_BASE_URL` at that prefix (with any `ANTHROPIC_API_KEY`; the demo ignores it). It
 * plays the agents of `modules` (the sandbox's workflow modules).
 */
export function createDemoModelHandler(
  modules: readonly SandboxDeclarations[] = [],
): (req: IncomingMessage, res: ServerResponse, body: string) => Promise<void> {
  let served = 0;
  let agents: Promise<DemoAgent[]> | undefined;
  return async (req, res, body) => {
    served += 1;
    const id = `msg_demo_${String(served).padStart(6, '0')}`;
    if (!isMessagesCall(req)) {
      sendReply(
        res,
        {
          kind: 'error',
          status: 404,
          errorType: 'not_found_error',
          message: `${DEMO_LABEL} serves POST /v1/messages only`,
        },
        { id, model: DEMO_MODEL_ID },
      );
      return;
    }
    const parsed = parseMessagesRequest(body);
    if (!parsed.ok) {
      sendReply(res, parsed.reply, { id, model: DEMO_MODEL_ID });
      return;
    }
    agents ??= demoAgentsOf(modules);
    const answer = demoReply(parsed.request, await agents);
    if (answer.kind === 'message') {
      // Rough token counts, so the ledger shows something plausible in the demo.
      answer.usage = {
        input_tokens: Math.ceil(body.length / 4),
        output_tokens: Math.ceil(JSON.stringify(answer.content).length / 4),
      };
    }
    sendReply(res, answer, { id, model: parsed.request.model });
  };
}
