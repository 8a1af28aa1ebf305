import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type * as z from 'zod';
import type { Ledger } from '../lambdas/kernel/model.ts';
import type { DemoAgents } from './demo/agents.ts';
import type { ConversationView, MessageView } from './sandbox-views.ts';

/**
 * What a workflow module gives the sandbox only (nothing of it is deployed): its own view of
 * its conversations in the console (`sandboxView`), the conversations it keeps without a
 * kernel record (`sandboxRecords`: channel conversations), and its agents as the offline demo
 * model plays them (`demoAgents`).
 */

/** The sandbox's part of a workflow module (`WorkflowModule` extends it). */
export interface SandboxDeclarations {
  /**
   * What the sandbox's console shows of one of its conversations beyond the kernel's records
   * (the incident's metrics, the issue pipeline's document), read from the conversations table.
   * The sandbox only: nothing is deployed for it.
   * @default - nothing more
   */
  sandboxView?(table: ConversationsTable): (conversationId: string) => Promise<WorkflowView>;
  /**
   * The conversations it keeps without a kernel record (channel conversations), as the
   * sandbox's console lists and shows them. The sandbox only.
   * @default - none: its conversations are the kernel's records
   */
  sandboxRecords?(table: ConversationsTable): SandboxRecords;
  /**
   * Its agents as the offline demo model plays them (local/model/demo-model.ts), each profile
   * with its rules (`playing`, statemachines/demo/agents.ts); loaded on the demo's first
   * request. The sandbox only.
   * @default - none: the demo answers its agents that it plays no agent
   */
  readonly demoAgents?: () => Promise<DemoAgents>;
}

/** The conversations table as the sandbox reaches it. */
export interface ConversationsTable {
  readonly client: DynamoDBClient;
  readonly tableName: string;
}

/** A workflow's own view of a conversation in the sandbox's console. */
export interface WorkflowView {
  /** Figures shown as tiles beside the ledger. */
  readonly metrics?: Readonly<Record<string, unknown>> | undefined;
  /** A document the workflow keeps (shown as it is). */
  readonly document?: unknown;
}

/**
 * The conversations a module keeps without a kernel record, as the console lists and shows
 * them: the sandbox reads them through the module, never their format.
 */
export interface SandboxRecords {
  /** Its conversations among the table's items (the sandbox scans the table once for all modules). */
  list(items: readonly Record<string, unknown>[], now: Date): ConversationView[];
  /**
   * One of its conversations with its messages and its ledger, from the table's items;
   * undefined when `id` is not one of its.
   */
  detail(
    id: string,
    items: readonly Record<string, unknown>[],
    now: Date,
  ): Promise<
    { conversation: ConversationView; messages: MessageView[]; ledger: Partial<Ledger> } | undefined
  >;
}

/** The modules' own views of their conversations in the sandbox, by workflow name. */
export function workflowViews(
  modules: readonly SandboxModule[],
  table: ConversationsTable,
): ReadonlyMap<string, (conversationId: string) => Promise<WorkflowView>> {
  const views = new Map<string, (conversationId: string) => Promise<WorkflowView>>();
  for (const module of modules) {
    const view = module.sandboxView?.(table);
    if (view === undefined) continue;
    for (const workflow of module.workflows ?? []) views.set(workflow.name, view);
  }
  return views;
}

/**
 * What the sandbox reads of a workflow module: its name, its configuration section's key (and
 * the keys that moved into it), its workflows' names and its sandbox declarations. Every
 * `WorkflowModule` is one. The default modules' are also declared apart from the code that
 * builds their state machines (`SANDBOX_MODULES`, statemachines/sandbox-modules.ts): the sandbox
 * runs the synthesized template, so a process that runs one never loads aws-cdk-lib for it.
 */
export interface SandboxModule extends SandboxDeclarations {
  readonly name: string;
  /** Its configuration section: the sandbox reads the key and the keys that moved into it. */
  readonly settings?: {
    readonly key: string;
    readonly schema?: z.ZodType;
    readonly movedFrom?: Readonly<Record<string, string>>;
  };
  readonly workflows?: readonly { readonly name: string }[];
}
