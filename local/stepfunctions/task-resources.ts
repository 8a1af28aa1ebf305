import { invalidDefinition } from './errors.ts';

/** Which integration a Task's Resource calls, of those the sandbox runs, and the time scale of its timeout. */

export const DYNAMODB_ACTIONS = ['getItem', 'putItem', 'updateItem', 'deleteItem'] as const;
export type DynamoDbAction = (typeof DYNAMODB_ACTIONS)[number];

export type TaskIntegration =
  | { readonly kind: 'lambda:invoke' }
  | { readonly kind: 'lambda:invoke.waitForTaskToken' }
  | { readonly kind: 'lambda-function' }
  | { readonly kind: 'dynamodb'; readonly action: DynamoDbAction }
  | { readonly kind: 'states:startExecution' }
  | { readonly kind: 'codebuild:startBuild'; readonly sync: boolean }
  | { readonly kind: 'wait-path'; readonly field: 'SecondsPath' | 'TimestampPath' };

/**
 * The time scale a Task's own timeout gets. Waits for people (callback tasks) are scaled:
 * that is what `SANDBOX_TIME_SCALE` is for, turning a 2-hour wait into seconds. A Task that
 * runs code keeps its real timeout when the scale shrinks time, because the code still takes
 * real time (a 30 s Drain would otherwise be cut off after 30 ms); a scale above 1 stretches both.
 */
export function taskTimeoutScale(integration: TaskIntegration, timeScale: number): number {
  return integration.kind === 'lambda:invoke.waitForTaskToken' ? timeScale : Math.max(1, timeScale);
}

const LAMBDA_FUNCTION_ARN =
  /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]+(:[A-Za-z0-9_$-]+)?$/;
const OPTIMIZED_INTEGRATION = /^arn:aws[a-z-]*:states:::(.+)$/;

export function classifyResource(
  resource: string,
  stateName: string,
  hasDynamoDb: boolean,
  hasCodeBuild = false,
): Exclude<TaskIntegration, { kind: 'wait-path' }> {
  if (LAMBDA_FUNCTION_ARN.test(resource)) return { kind: 'lambda-function' };
  const service = OPTIMIZED_INTEGRATION.exec(resource)?.[1];
  switch (service) {
    case 'lambda:invoke':
      return { kind: 'lambda:invoke' };
    case 'lambda:invoke.waitForTaskToken':
      return { kind: 'lambda:invoke.waitForTaskToken' };
    case 'states:startExecution':
      return { kind: 'states:startExecution' };
    case 'codebuild:startBuild':
    case 'codebuild:startBuild.sync':
      if (!hasCodeBuild) {
        throw invalidDefinition(
          `state '${stateName}' uses ${resource}, but the sandbox's Step Functions has no CodeBuild`,
        );
      }
      return { kind: 'codebuild:startBuild', sync: service.endsWith('.sync') };
  }
  const action = DYNAMODB_ACTIONS.find((candidate) => service === `dynamodb:${candidate}`);
  if (action) {
    if (!hasDynamoDb) {
      throw invalidDefinition(
        `state '${stateName}' uses ${resource}, but the sandbox's Step Functions has no DynamoDB client`,
      );
    }
    return { kind: 'dynamodb', action };
  }
  throw invalidDefinition(
    `state '${stateName}' uses the resource '${resource}', which the sandbox does not support ` +
      '(supported: lambda:invoke, lambda:invoke.waitForTaskToken, Lambda function ARNs, ' +
      'dynamodb:getItem|putItem|updateItem|deleteItem, states:startExecution, codebuild:startBuild[.sync])',
  );
}
