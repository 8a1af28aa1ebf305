import { Aws, Validations } from 'aws-cdk-lib';
import { Effect, type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BEDROCK_ID_EXPECTED, parseBedrockModelId } from './bedrock-model-id.ts';

/**
 * `bedrock:InvokeModel` on exactly the configured models: each foundation model in the
 * stack's region, or, for an inference profile, the profile in the stack's region and account
 * plus its foundation model in any region (a cross-region profile routes a request to one of
 * its geography's regions, and Bedrock checks the model's ARN there too). No streaming action:
 * the clients call InvokeModel only.
 */
export function bedrockInvokeStatement(modelIds: readonly string[]): PolicyStatement {
  const resources = new Set<string>();
  for (const id of modelIds) {
    const model = parseBedrockModelId(id);
    if (model === undefined) throw new Error(`"${id}": ${BEDROCK_ID_EXPECTED}`);
    if (model.geography === undefined) {
      resources.add(
        `arn:${Aws.PARTITION}:bedrock:${Aws.REGION}::foundation-model/${model.foundationModelId}`,
      );
    } else {
      resources.add(
        `arn:${Aws.PARTITION}:bedrock:${Aws.REGION}:${Aws.ACCOUNT_ID}:inference-profile/${model.id}`,
      );
      resources.add(`arn:${Aws.PARTITION}:bedrock:*::foundation-model/${model.foundationModelId}`);
    }
  }
  return new PolicyStatement({
    effect: Effect.ALLOW,
    actions: ['bedrock:InvokeModel'],
    resources: [...resources],
  });
}

/**
 * Lets a function's role invoke the given Bedrock models, and acknowledges the one wildcard
 * such a grant has: the region of an inference profile's foundation model.
 */
export function grantBedrockInvoke(role: IRole, modelIds: readonly string[]): void {
  role.addToPrincipalPolicy(bedrockInvokeStatement(modelIds));
  for (const id of modelIds) {
    const model = parseBedrockModelId(id);
    if (model?.geography === undefined) continue;
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/${model.foundationModelId}]`,
      reason: `The inference profile ${model.id} routes requests to ${model.foundationModelId} in the regions of its geography; the grant names that model alone, in any region.`,
    });
  }
}

/** Lets a function's role apply the configured guardrail, which InvokeModel requires when a call names one. */
export function grantBedrockGuardrail(role: IRole, guardrailId: string): void {
  const arn = guardrailId.startsWith('arn:')
    ? guardrailId
    : `arn:${Aws.PARTITION}:bedrock:${Aws.REGION}:${Aws.ACCOUNT_ID}:guardrail/${guardrailId}`;
  role.addToPrincipalPolicy(
    new PolicyStatement({ effect: Effect.ALLOW, actions: ['bedrock:ApplyGuardrail'], resources: [arn] }),
  );
}

/**
 * Lets `fn` invoke exactly `modelIds` (each a Bedrock model id, or the deploy fails naming the
 * function and the id), and apply the configured guardrail when there is one.
 */
export function grantBedrockModels(
  fn: { node: { id: string }; role?: IRole | undefined },
  modelIds: readonly string[],
  guardrail: { id: string } | undefined,
): void {
  for (const id of modelIds) {
    if (!parseBedrockModelId(id))
      throw new Error(
        `${fn.node.id} calls the model "${id}": with model.provider bedrock, ${BEDROCK_ID_EXPECTED}`,
      );
  }
  if (fn.role === undefined) throw new Error(`${fn.node.id} has no execution role`);
  grantBedrockInvoke(fn.role, [...new Set(modelIds)]);
  if (guardrail) grantBedrockGuardrail(fn.role, guardrail.id);
}
