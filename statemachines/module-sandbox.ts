import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { AnyWorkflowModule } from './workflow-module.ts';

/**
 * What a workflow module gives the sandbox only (nothing of it is deployed): its own view of
 * its conversations in the console (`sandboxView`).
 */

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

/** The modules' own views of their conversations in the sandbox, by workflow name. */
export function workflowViews(
  modules: readonly AnyWorkflowModule[],
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
