import { spawnSync } from 'node:child_process';

/**
 * Prepares a synthesized template for moto's CloudFormation (`moto_server`), which models most
 * of the stack's resource types but not all: the types it lacks are set aside (and references
 * to them replaced by values of the right shape), FIFO queues get explicit names, which
 * moto needs to end in `.fifo` (CloudFormation generates them in AWS), and a `Ref` to a Lambda
 * version is written as the version's ARN (moto 5.2 creates `AWS::Lambda::Version` but resolves
 * a `Ref` to it to its Python object, which an IAM policy cannot hold). Nothing else changes.
 */

/**
 * Resource types of the stack moto's CloudFormation does not create (moto 5.2 has no model
 * class for them: `resource_class_from_type` in moto/cloudformation/parsing.py), set aside
 * from the rehearsal. The rehearsal asks moto itself, and fails when this list is off.
 */
export const TYPES_MOTO_LACKS = [
  'AWS::CloudWatch::Alarm',
  'AWS::CodeBuild::Project',
  'AWS::Lambda::EventInvokeConfig',
  'AWS::Lambda::Url',
  'AWS::SNS::Subscription',
  'AWS::SNS::TopicPolicy',
  'AWS::SQS::QueuePolicy',
  'AWS::SecretsManager::Secret',
  'AWS::StepFunctions::StateMachineAlias',
  'AWS::StepFunctions::StateMachineVersion',
] as const;

/** The types among `types` that moto's CloudFormation has no model for, asked of moto's own Python package. */
export function typesMotoLacks(types: readonly string[]): string[] {
  const script = [
    'import json, sys',
    'from moto.cloudformation.parsing import resource_class_from_type',
    'print(json.dumps([t for t in json.load(sys.stdin) if not resource_class_from_type(t)]))',
  ].join('\n');
  const run = spawnSync('python3', ['-c', script], { input: JSON.stringify(types), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`could not ask moto which types it models: ${run.stderr}`);
  return (JSON.parse(run.stdout) as string[]).sort();
}

export const MOTO_ACCOUNT = '123456789012';
export const MOTO_REGION = 'us-east-1';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export interface Template {
  Resources: Record<
    string,
    { Type: string; Properties?: Record<string, Json>; DependsOn?: string | string[] }
  >;
  [section: string]: Json | Template['Resources'];
}

/** A value of the right shape for a reference to a resource that is set aside. */
function standIn(type: string, logicalId: string, attribute: string | undefined): string {
  const arn = (service: string, resource: string) =>
    `arn:aws:${service}:${MOTO_REGION}:${MOTO_ACCOUNT}:${resource}`;
  switch (type) {
    case 'AWS::SecretsManager::Secret':
      return attribute === undefined || attribute === 'Id'
        ? arn('secretsmanager', `secret:${logicalId}-AbCdEf`)
        : logicalId;
    case 'AWS::CloudWatch::Alarm':
      return attribute === 'Arn' ? arn('cloudwatch', `alarm:${logicalId}`) : logicalId;
    case 'AWS::CodeBuild::Project':
      return attribute === 'Arn' ? arn('codebuild', `project/${logicalId}`) : logicalId;
    case 'AWS::Lambda::Url':
      return `https://${logicalId.toLowerCase()}.lambda-url.${MOTO_REGION}.on.aws/`;
    // A qualified state machine ARN: the version number or the alias name after the name.
    case 'AWS::StepFunctions::StateMachineVersion':
      return arn('states', `stateMachine:${logicalId}:1`);
    case 'AWS::StepFunctions::StateMachineAlias':
      return arn('states', `stateMachine:${logicalId}:live`);
    default:
      return logicalId;
  }
}

/** The template without the types moto lacks; returns it with the logical ids set aside. */
export function forMoto(template: Template): { template: Template; setAside: string[] } {
  const lacking = new Set<string>(TYPES_MOTO_LACKS);
  const setAside = new Map(
    Object.entries(template.Resources)
      .filter(([, resource]) => lacking.has(resource.Type))
      .map(([id, resource]) => [id, resource.Type]),
  );
  const versionOf = new Map(
    Object.entries(template.Resources)
      .filter(([, resource]) => resource.Type === 'AWS::Lambda::Version')
      .map(([id, resource]) => [
        id,
        (resource.Properties?.FunctionName as { Ref?: string } | undefined)?.Ref,
      ]),
  );
  const replace = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(replace);
    if (value === null || typeof value !== 'object') return value;
    const ref = value.Ref;
    const versionedFunction = typeof ref === 'string' ? versionOf.get(ref) : undefined;
    // The first version of the function: what AWS answers for a Ref to it in a new stack.
    if (versionedFunction !== undefined) {
      return { 'Fn::Join': [':', [{ 'Fn::GetAtt': [versionedFunction, 'Arn'] }, '1']] };
    }
    if (typeof ref === 'string' && setAside.has(ref))
      return standIn(setAside.get(ref) as string, ref, undefined);
    const getAtt = value['Fn::GetAtt'];
    if (Array.isArray(getAtt) && typeof getAtt[0] === 'string' && setAside.has(getAtt[0])) {
      return standIn(setAside.get(getAtt[0]) as string, getAtt[0], String(getAtt[1]));
    }
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, replace(inner)]));
  };
  const resources: Template['Resources'] = {};
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (setAside.has(id)) continue;
    const dependsOn = [resource.DependsOn ?? []].flat().filter((d) => !setAside.has(d));
    const properties = replace(resource.Properties ?? {}) as Record<string, Json>;
    if (
      resource.Type === 'AWS::SQS::Queue' &&
      properties.FifoQueue === true &&
      properties.QueueName === undefined
    ) {
      properties.QueueName = `${id}.fifo`;
    }
    const { DependsOn: _dependsOn, ...kept } = resource;
    resources[id] = {
      ...kept,
      Properties: properties,
      ...(dependsOn.length > 0 ? { DependsOn: dependsOn } : {}),
    };
  }
  const { Outputs, ...rest } = template;
  return {
    template: {
      ...rest,
      ...(Outputs === undefined ? {} : { Outputs: replace(Outputs as Json) }),
      Resources: resources,
    } as Template,
    setAside: [...setAside.keys()],
  };
}

/** The asset keys of the template's functions (`Code.S3Key`), which `cdk deploy` uploads to the bootstrap bucket. */
export function assetKeys(template: Template): string[] {
  return [
    ...new Set(
      Object.values(template.Resources).flatMap((resource) => {
        const key = (resource.Properties?.Code as { S3Key?: Json } | undefined)?.S3Key;
        return typeof key === 'string' ? [key] : [];
      }),
    ),
  ];
}

/** An empty zip archive (its end-of-central-directory record alone): what stands in for each bundle. */
export const EMPTY_ZIP = Buffer.concat([Buffer.from('PK\x05\x06'), Buffer.alloc(18)]);
