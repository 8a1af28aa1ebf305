import type { MessageCreateParamsNonStreaming, ModelClient } from '../agents/ports.ts';
import type { RedactionSettings } from '../redaction/index.ts';
import { doorRedactor } from '../redaction/index.ts';

/**
 * The last door before the model provider: every text of every request (the system prompt,
 * messages, tool results) passes the redaction layer, whoever built it (an agent turn, a
 * channel answer, a log template review). Text redacted before (an agent turn's transcript)
 * keeps its placeholders and costs a scan; what slipped past every earlier boundary is caught
 * here. Placeholders made here are keyed by the conversation the call is made for, like the
 * turn's own (and counted in its ledger), or by `scope` (the function) when none is known.
 */
export function redactingModel(model: ModelClient, settings: RedactionSettings, scope: string): ModelClient {
  return {
    async createMessage(params, options) {
      const redactor = doorRedactor(scope, settings);
      const system =
        params.system === undefined ? {} : { system: (await redactor.redactValue(params.system)).value };
      const { value: messages } = await redactor.redactValue(params.messages);
      const request: MessageCreateParamsNonStreaming = { ...params, ...system, messages };
      return model.createMessage(request, options);
    },
  };
}
