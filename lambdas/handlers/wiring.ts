import { SFNClient } from '@aws-sdk/client-sfn';
import type { DynamoConversationStore } from '../adapters/dynamo-store.ts';
import { SfnExecutions } from '../adapters/sfn-executions.ts';
import { WorkflowRegistrations, withStateMachineArns } from '../kernel/workflows.ts';
import { ENV } from '../shared/env.ts';
import { conversationStore } from './conversation-store.ts';

/**
 * The real adapters, built once per Lambda instance on first use (not at import, so a
 * handler's module can be loaded by the sandbox before its environment is set). The SDK
 * clients honour `AWS_ENDPOINT_URL_*`, which is how the sandbox points them at itself.
 */
let kernel: { store: DynamoConversationStore; executions: SfnExecutions } | undefined;

export function kernelDeps() {
  kernel ??= {
    store: conversationStore(),
    executions: new SfnExecutions(new SFNClient({})),
  };
  return kernel;
}

export class InvalidWorkflowConfigurationError extends Error {
  override readonly name = 'InvalidWorkflowConfigurationError';
  constructor(options: { cause: unknown }) {
    super(`${ENV.workflows} is not a valid list of workflow registrations`, options);
  }
}

export function workflowRegistrations(env: NodeJS.ProcessEnv = process.env) {
  const raw = env[ENV.workflows] ?? '[]';
  try {
    const arns = JSON.parse(env[ENV.workflowStateMachines] ?? '{}') as Record<string, string>;
    return WorkflowRegistrations.parse(withStateMachineArns(JSON.parse(raw), arns));
  } catch (cause) {
    throw new InvalidWorkflowConfigurationError({ cause });
  }
}
