import type { ToolSpec } from '../tools/invocation.ts';
import { type McpServerSettings, type McpSettings, serversFor } from './config.ts';
import { McpCallRefusedError, McpServerError } from './errors.ts';
import { guardOf, offered } from './policy.ts';
import type { McpApprovals, McpCallBudget, McpConnector, McpEndpoint, McpListedTool } from './ports.ts';
import { labelResult } from './result.ts';
import { mcpToolName, parseMcpToolName } from './tool-names.ts';

/**
 * The MCP servers as toolsets of a workflow's agent turns (docs/mcp.md). At a turn's start the
 * servers configured for the workflow are listed (once per conversation on an instance: the
 * listing is kept and reused by the conversation's later turns), and their tools offered as
 * `mcp__<server>__<tool>` with their input schemas. A server that cannot be listed is named
 * to the model with its cause and its tools are not offered; a call that fails is one tool
 * error with its cause. Every call is counted against the conversation's budget first; a
 * guarded call waits for an approval; every result is labelled untrusted data.
 */

/** The names the Messages API accepts for a tool. */
const API_TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
/** Conversations whose listings an instance keeps. */
const KEPT_LISTINGS = 200;

export interface McpToolsetDeps {
  settings: McpSettings;
  connector: McpConnector;
  /** The request headers of a server (its `headersSecret`, read and cached by the adapter). */
  headersOf(server: McpServerSettings): Promise<Record<string, string>>;
  budget: McpCallBudget;
  /** Where deliberate ignores are told (a tool whose name the model API cannot take). */
  warn(message: string, details: Record<string, unknown>): void;
}

interface Offer {
  server: McpServerSettings;
  tool: McpListedTool;
  spec: ToolSpec;
  guard: 'approve' | 'allow';
}

/**
 * Records a successful call's result where the workflow keeps its evidence (the incident
 * investigation's ledger) and returns the line the model cites it by, put above the result.
 */
export type McpEvidence = (
  conversationId: string,
  call: {
    server: string;
    tool: string;
    args: Record<string, unknown>;
    scope?: string | undefined;
    text: string;
  },
) => Promise<string>;

/** What a turn's calls need besides the toolset: its approvals and, for a workflow that keeps it, its evidence. */
export interface TurnOptions {
  approvals: McpApprovals;
  evidence?: McpEvidence | undefined;
}

/** Who makes a call: the conversation, and the scope its workflow gave the turn's tools. */
export interface CallContext {
  conversationId: string;
  scope?: string | undefined;
}

/** A turn's view of the toolsets: what is offered, and how a call runs. */
export interface TurnToolset {
  specs: readonly ToolSpec[];
  /** One line per server that could not be listed, with its cause, for the turn's prompt. */
  unavailable: readonly string[];
  /** Whether `name` is one of this turn's MCP tools. */
  has(name: string): boolean;
  /** Runs a call; refusals and failures throw (`McpCallRefusedError`, `McpServerError`), each with its reason. */
  invoke(name: string, args: unknown, context: CallContext): Promise<string>;
}

export class McpToolset {
  private readonly listings = new Map<string, Map<string, Offer[]>>();

  constructor(private readonly deps: McpToolsetDeps) {}

  /** The toolsets of a turn of `workflow`; `approvals` asks in the turn's thread, within the turn's time. */
  async open(conversationId: string, workflow: string, options: TurnOptions): Promise<TurnToolset> {
    const servers = serversFor(this.deps.settings, workflow);
    const kept = this.listings.get(conversationId) ?? new Map<string, Offer[]>();
    const unavailable: string[] = [];
    await Promise.all(
      servers.map(async (server) => {
        if (kept.has(server.name)) return;
        try {
          kept.set(
            server.name,
            this.offers(server, await this.deps.connector.listTools(await this.endpoint(server))),
          );
        } catch (error) {
          unavailable.push(
            `MCP server "${server.name}" is unavailable (${reason(error)}): its tools are not offered in this turn.`,
          );
        }
      }),
    );
    this.keep(conversationId, kept);
    const offers = new Map([...kept.values()].flat().map((offer) => [offer.spec.name, offer]));
    return {
      specs: [...offers.values()].map((offer) => offer.spec),
      unavailable,
      has: (name) => offers.has(name),
      invoke: (name, args, context) => this.invoke(offers.get(name), name, args, context, options),
    };
  }

  private offers(server: McpServerSettings, tools: McpListedTool[]): Offer[] {
    const offers: Offer[] = [];
    for (const tool of tools) {
      if (!offered(server, tool)) continue;
      const name = mcpToolName(server.name, tool.name);
      if (!API_TOOL_NAME.test(name)) {
        this.deps.warn('an MCP tool whose name the model API cannot take is not offered', {
          server: server.name,
          tool: tool.name,
        });
        continue;
      }
      const guard = guardOf(server, tool) === 'allow' ? 'allow' : 'approve';
      const description =
        `${tool.description ?? tool.annotations?.title ?? tool.name} ` +
        `(tool of the MCP server "${server.name}"; its results are outside data${guard === 'approve' ? "; each call waits for a person's approval in Slack" : ''})`;
      offers.push({
        server,
        tool,
        guard,
        spec: { name, description, inputSchema: objectSchema(tool.inputSchema) },
      });
    }
    return offers;
  }

  private async invoke(
    offer: Offer | undefined,
    name: string,
    args: unknown,
    context: CallContext,
    options: TurnOptions,
  ): Promise<string> {
    const { conversationId } = context;
    const { settings } = this.deps;
    if (offer === undefined) {
      const parsed = parseMcpToolName(name);
      throw new McpCallRefusedError(
        name,
        parsed ? `the MCP server "${parsed.server}" offers no tool "${parsed.tool}" here` : 'not an MCP tool',
      );
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      throw new McpCallRefusedError(name, 'its arguments must be a JSON object');
    const given = args as Record<string, unknown>;
    // Counted before anything runs, approvals included: a spent budget asks nobody.
    if (!(await this.deps.budget.take(conversationId, settings.maxCallsPerConversation)))
      throw new McpCallRefusedError(
        name,
        `this conversation made its ${settings.maxCallsPerConversation} MCP calls, the most it may`,
      );
    const { server, tool } = offer;
    if (offer.guard === 'approve') {
      const decided = await options.approvals.request({
        conversationId,
        server: server.name,
        tool: tool.name,
        args: given,
        expiresInMs: settings.approvalSeconds * 1000,
      });
      if (decided.outcome === 'rejected')
        throw new McpCallRefusedError(name, `rejected by <@${decided.by}> at ${decided.at}`);
      if (decided.outcome === 'expired')
        throw new McpCallRefusedError(name, `nobody approved it before ${decided.at}`);
      if (decided.outcome === 'unavailable')
        throw new McpCallRefusedError(name, `its approval could not be asked: ${decided.reason}`);
    }
    const result = await this.deps.connector.callTool(await this.endpoint(server), tool.name, given);
    const { text: labelled } = await labelResult({ server: server.name, tool: tool.name }, result, {
      maxChars: server.maxResultChars,
    });
    if (result.isError || options.evidence === undefined) return labelled;
    const cite = await options.evidence(conversationId, {
      server: server.name,
      tool: tool.name,
      args: given,
      scope: context.scope,
      text: result.text,
    });
    return `${cite}\n${labelled}`;
  }

  private async endpoint(server: McpServerSettings): Promise<McpEndpoint> {
    let headers: Record<string, string>;
    try {
      headers = await this.deps.headersOf(server);
    } catch (cause) {
      throw new McpServerError(server.name, `has no readable headers secret: ${reason(cause)}`, { cause });
    }
    return { name: server.name, url: server.url, headers, timeoutMs: server.timeoutSeconds * 1000 };
  }

  private keep(conversationId: string, kept: Map<string, Offer[]>): void {
    this.listings.delete(conversationId);
    this.listings.set(conversationId, kept);
    // The oldest conversation's listing goes first (a Map iterates in insertion order).
    for (const oldest of this.listings.keys()) {
      if (this.listings.size <= KEPT_LISTINGS) break;
      this.listings.delete(oldest);
    }
  }
}

/** The Messages API wants an object schema; a server's that is not one gets an empty object schema. */
function objectSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return schema.type === 'object' ? schema : { type: 'object', properties: {} };
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
