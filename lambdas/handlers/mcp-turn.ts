import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { conversationFields } from '../adapters/conversation-fields.ts';
import type { TurnStartRecord } from '../adapters/dynamo-turn-conversation.ts';
import type { AgentTurnInput } from '../agents/contract.ts';
import type { AgentLogger, ToolInvoker } from '../agents/ports.ts';
import type { ProfileRegistry } from '../agents/profile.ts';
import { Conversation } from '../kernel/model.ts';
import { systemClock } from '../kernel/ports.ts';
import { createMcpApprovals } from '../mcp/approvals.ts';
import { MCP_DECISION } from '../mcp/config.ts';
import { mcpSettings } from '../mcp/from-env.ts';
import { parseMcpToolName } from '../mcp/tool-names.ts';
import { type McpEvidence, McpToolset, type TurnToolset } from '../mcp/toolset.ts';
import { progressTarget } from '../progress/target.ts';
import { ENV, requireEnv } from '../shared/env.ts';
import { conversationStore } from './conversation-store.ts';

/**
 * The MCP toolsets in an agent turn (docs/mcp.md): the turn's profile gets the tools of the
 * servers configured for its workflow, its prompt a line per server that could not be listed,
 * and its tool invoker sends `mcp__` calls to the servers. Without configured servers the turn
 * is left as it is, and nothing of MCP is loaded.
 */

/** Time kept back from the turn's deadline when a call waits for an approval. */
const APPROVAL_MARGIN_MS = 15_000;

let toolset: Promise<McpToolset> | undefined;

async function buildToolset(logger: AgentLogger): Promise<McpToolset> {
  const [{ createMcpConnector }, { mcpHeaders }, { DynamoMcpCallBudget }] = await Promise.all([
    import('../adapters/mcp-client.ts'),
    import('../adapters/mcp-headers.ts'),
    import('../adapters/dynamo-mcp-budget.ts'),
  ]);
  return new McpToolset({
    settings: mcpSettings(),
    connector: createMcpConnector(),
    headersOf: mcpHeaders,
    budget: new DynamoMcpCallBudget({ client: new DynamoDBClient({}), tableName: requireEnv(ENV.tableName) }),
    warn: (message, details) => logger.warn(message, details),
  });
}

export interface McpTurn {
  profiles: ProfileRegistry;
  tools: ToolInvoker;
}

/** The turn's profiles and tools with the MCP toolsets added; undefined when no server is configured. */
export async function withMcpTools(
  input: AgentTurnInput,
  base: {
    profiles: ProfileRegistry;
    tools: ToolInvoker;
    deadlineMs: number;
    logger: AgentLogger;
    /** Where the workflow keeps evidence its agents cite (the incident investigation's ledger). */
    evidence?: McpEvidence | undefined;
    /** The conversation's record, as the turn's start read it. */
    record: Promise<TurnStartRecord>;
  },
): Promise<McpTurn | undefined> {
  if (mcpSettings().servers.length === 0) return undefined;
  const profile = base.profiles[input.profile];
  const { conversationId, item } = await base.record;
  const conversation = conversationFields(conversationId, item, Conversation);
  if (profile === undefined) return undefined;
  const pending = toolset ?? buildToolset(base.logger);
  toolset = pending;
  const built = await pending.catch((error: unknown) => {
    toolset = undefined;
    throw error;
  });
  const target = progressTarget(conversation, input);
  const turn = await built.open(conversation.id, conversation.workflow, {
    approvals: await approvalsFor(target, base.deadlineMs, base.logger),
    evidence: base.evidence,
  });
  if (turn.specs.length === 0 && turn.unavailable.length === 0) return undefined;
  return {
    profiles: {
      ...base.profiles,
      [input.profile]: {
        ...profile,
        tools: [...profile.tools, ...turn.specs],
        prompt: (given: AgentTurnInput) => [profile.prompt(given), ...turn.unavailable].join('\n\n'),
      },
    },
    tools: routed(turn, base.tools),
  };
}

function routed(turn: TurnToolset, tools: ToolInvoker): ToolInvoker {
  return {
    invoke: (tool, args, context) =>
      turn.has(tool) || parseMcpToolName(tool) !== undefined
        ? turn.invoke(tool, args, {
            conversationId: context.conversationId,
            scope: context.toolContext?.scope,
          })
        : tools.invoke(tool, args, context),
  };
}

async function approvalsFor(
  target: { channel: string; threadTs: string } | undefined,
  deadlineMs: number,
  logger: AgentLogger,
) {
  const [{ postNow }, { DynamoApprovalStore }, { getSlackSecret }, { createSlackApprovalNotices }] =
    await Promise.all([
      import('./slack-post.ts'),
      import('../adapters/dynamo-approvals.ts'),
      import('../adapters/secrets.ts'),
      import('../slack/approval-notices.ts'),
    ]);
  const store = new DynamoApprovalStore({
    client: new DynamoDBClient({}),
    tableName: requireEnv(ENV.tableName),
  });
  return createMcpApprovals({
    thread: target && { channel: target.channel, threadTs: target.threadTs },
    post: postNow,
    current: async (conversationId) =>
      (await conversationStore().getConversation(conversationId, { consistent: true }))?.approvals?.[
        MCP_DECISION
      ],
    expiry: {
      store,
      notices: {
        // The Slack client is made only when an approval expires with its message to update.
        expired: async (approval, at) => {
          const { botToken } = await getSlackSecret();
          const slackApiUrl = process.env[ENV.slackApiUrl];
          await createSlackApprovalNotices({
            token: botToken,
            ...(slackApiUrl ? { slackApiUrl } : {}),
          }).expired(approval, at);
        },
        decided: async () => {},
        refused: async () => {},
      },
      warn: (message, details) => logger.warn(message, details),
    },
    clock: systemClock,
    deadlineMs: deadlineMs - APPROVAL_MARGIN_MS,
  });
}
