import type {
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { Ledger } from '../kernel/model.ts';
import type { Clock } from '../kernel/ports.ts';
import type { RedactionSettings } from '../redaction/index.ts';
import type { ToolInvoker } from './contract.ts';

/**
 * The agent runtime's seams. The runtime speaks the Anthropic Messages API's shapes (types
 * only); adapters put the Anthropic SDK, DynamoDB and the tool Lambdas behind these ports,
 * and tests hand in the real adapters against local servers, or fakes.
 */

export type { Message, MessageCreateParamsNonStreaming, MessageParam };

/** One Messages API call. Implementations retry transient failures themselves and throw `ModelCallError` after. */
export interface ModelClient {
  createMessage(
    params: MessageCreateParamsNonStreaming,
    options?: { signal?: AbortSignal },
  ): Promise<Message>;
}

/**
 * The agent's transcript, stored per turn and reloaded by session id
 * (`claude_session_id`): `save` stores the messages a turn added; `load` returns every
 * stored turn's messages in order, only turns before `beforeTurn` when given (a retried turn
 * must not see its own earlier attempt).
 */
export interface TranscriptStore {
  load(conversationId: string, sessionId: string, options?: { beforeTurn?: number }): Promise<MessageParam[]>;
  save(conversationId: string, sessionId: string, turn: number, messages: MessageParam[]): Promise<void>;
}

/** Adds to the conversation's cost ledger (`ConversationStore.addToLedger`). */
export type LedgerWriter = (conversationId: string, delta: Partial<Ledger>) => Promise<void>;

/** The structured logger's subset the runtime uses (Powertools' Logger fits). */
export interface AgentLogger {
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

export const silentLogger: AgentLogger = { info: () => {}, warn: () => {}, error: () => {} };

/** What bounds one turn. */
export interface TurnBudget {
  /** Epoch ms after which the turn starts no further model or tool call (already below the Lambda timeout). */
  deadlineMs: number;
  /** Tool calls (the final submit not counted) after which the turn stops. */
  maxToolCalls: number;
}

export interface AgentTurnDeps {
  model: ModelClient;
  /** The model id sent with every request, e.g. `claude-sonnet-5-5`. */
  modelId: string;
  tools: ToolInvoker;
  transcripts: TranscriptStore;
  ledger: LedgerWriter;
  clock: Clock;
  budget: TurnBudget;
  logger?: AgentLogger;
  /** New session ids (first turns). @default crypto.randomUUID */
  newSessionId?: () => string;
  /** The installation's redaction settings (personal data classes, allow list). @default DEFAULT_REDACTION */
  redaction?: RedactionSettings;
}

export type { Clock, ToolInvoker };
