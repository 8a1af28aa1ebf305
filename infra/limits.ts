/**
 * Limits AWS enforces at deploy that synth, cfn-lint and cdk-nag do not check, measured on a
 * synthesized template: each function's environment (4 KB in all, keys and values, which
 * `CreateFunction` refuses beyond), each state machine's definition (1 MB), the template
 * itself (1 MB, 500 resources, 200 outputs), and the lengths of the names the stack sets.
 *
 * Values CloudFormation fills in at deploy (`Ref`, `Fn::GetAtt`) are counted at the longest
 * they can plausibly be, so a pass here holds in any region and account: a generated name at
 * 80 characters, an ARN or queue URL at 160, a function name at its limit of 64.
 */

type Template = {
  Resources?: Record<
    string,
    { Type: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> }
  >;
  Outputs?: Record<string, unknown>;
};

export const LAMBDA_ENVIRONMENT_LIMIT = 4096;
export const STATE_MACHINE_DEFINITION_LIMIT = 1_048_576;
export const TEMPLATE_BODY_LIMIT = 1_048_576;
export const TEMPLATE_RESOURCE_LIMIT = 500;
export const TEMPLATE_OUTPUT_LIMIT = 200;

/** The longest a deploy-time value can be, by what it refers to. */
function deployTimeLength(template: Template, value: Record<string, unknown>): number {
  const ref = value.Ref;
  if (typeof ref === 'string') {
    const type = template.Resources?.[ref]?.Type;
    if (type === 'AWS::Lambda::Function') return 64;
    if (type === 'AWS::DynamoDB::Table' || type === 'AWS::Events::Rule') return 80;
    return 160;
  }
  const getAtt = value['Fn::GetAtt'];
  if (Array.isArray(getAtt)) return getAtt[1] === 'Arn' || getAtt[1] === 'QueueUrl' ? 160 : 80;
  const join = value['Fn::Join'];
  if (Array.isArray(join)) {
    const [separator, parts] = join as [string, unknown[]];
    return (
      parts.reduce<number>((sum, part) => sum + valueLength(template, part), 0) +
      separator.length * Math.max(0, parts.length - 1)
    );
  }
  return 160;
}

function valueLength(template: Template, value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value).length;
  if (value !== null && typeof value === 'object')
    return deployTimeLength(template, value as Record<string, unknown>);
  return 0;
}

/** The size Lambda counts for an environment (its keys and values), at its longest. */
export function environmentSize(template: Template, variables: Readonly<Record<string, unknown>>): number {
  return Object.entries(variables).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + valueLength(template, value),
    0,
  );
}

/** Each function's environment size at its longest, by its `slack-agents:function` id (else its logical id). */
export function environmentSizes(template: Template): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const [logicalId, resource] of Object.entries(template.Resources ?? {})) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const variables =
      (resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ??
      {};
    const id = resource.Metadata?.['slack-agents:function'];
    sizes.set(typeof id === 'string' ? id : logicalId, environmentSize(template, variables));
  }
  return sizes;
}

/** Name properties the stack may set, with the longest AWS accepts. */
const NAME_LIMITS: Record<string, [property: string, max: number]> = {
  'AWS::Lambda::Function': ['FunctionName', 64],
  'AWS::SQS::Queue': ['QueueName', 80],
  'AWS::Logs::LogGroup': ['LogGroupName', 512],
  'AWS::IAM::Role': ['RoleName', 64],
  'AWS::Events::Rule': ['Name', 64],
  'AWS::StepFunctions::StateMachine': ['StateMachineName', 80],
  'AWS::CloudWatch::Alarm': ['AlarmName', 255],
  'AWS::DynamoDB::Table': ['TableName', 255],
  'AWS::SecretsManager::Secret': ['Name', 512],
  'AWS::CodeBuild::Project': ['Name', 255],
  'AWS::SNS::Topic': ['TopicName', 256],
  'AWS::CloudWatch::Dashboard': ['DashboardName', 255],
};

/** One exceeded limit: what, where, and how far. */
export interface LimitProblem {
  readonly resource: string;
  readonly message: string;
}

/** Every limit the template exceeds (empty: it fits). */
export function limitProblems(template: Template, stackName: string): LimitProblem[] {
  const problems: LimitProblem[] = [];
  const resources = Object.entries(template.Resources ?? {});
  const body = Buffer.byteLength(JSON.stringify(template));
  if (body > TEMPLATE_BODY_LIMIT)
    problems.push({
      resource: stackName,
      message: `template is ${body} bytes; CloudFormation takes ${TEMPLATE_BODY_LIMIT} at most`,
    });
  if (resources.length > TEMPLATE_RESOURCE_LIMIT)
    problems.push({
      resource: stackName,
      message: `${resources.length} resources; CloudFormation takes ${TEMPLATE_RESOURCE_LIMIT} per stack`,
    });
  const outputs = Object.keys(template.Outputs ?? {}).length;
  if (outputs > TEMPLATE_OUTPUT_LIMIT)
    problems.push({
      resource: stackName,
      message: `${outputs} outputs; CloudFormation takes ${TEMPLATE_OUTPUT_LIMIT}`,
    });
  if (!/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(stackName))
    problems.push({
      resource: stackName,
      message: 'stack name: a letter, then letters, digits and hyphens, 128 at most',
    });
  for (const [id, size] of environmentSizes(template)) {
    if (size >= LAMBDA_ENVIRONMENT_LIMIT)
      problems.push({
        resource: id,
        message: `environment up to ${size} bytes; Lambda takes ${LAMBDA_ENVIRONMENT_LIMIT} in all (move synth-time values to the configuration file)`,
      });
  }
  for (const [logicalId, resource] of resources) {
    if (resource.Type === 'AWS::StepFunctions::StateMachine') {
      const size = valueLength(template, resource.Properties?.DefinitionString);
      if (size > STATE_MACHINE_DEFINITION_LIMIT)
        problems.push({
          resource: logicalId,
          message: `definition up to ${size} bytes; Step Functions takes ${STATE_MACHINE_DEFINITION_LIMIT}`,
        });
    }
    const limit = NAME_LIMITS[resource.Type];
    const name = limit ? resource.Properties?.[limit[0]] : undefined;
    if (limit && name !== undefined) {
      const length = valueLength(template, name);
      if (length > limit[1])
        problems.push({
          resource: logicalId,
          message: `${limit[0]} up to ${length} characters; ${resource.Type} takes ${limit[1]}`,
        });
    }
    if (resource.Type === 'AWS::SQS::Queue' && resource.Properties?.FifoQueue === true) {
      const queueName = resource.Properties.QueueName;
      if (typeof queueName === 'string' && !queueName.endsWith('.fifo'))
        problems.push({ resource: logicalId, message: `FIFO queue name ${queueName} must end in .fifo` });
    }
    if (resource.Type === 'AWS::Lambda::Function') {
      const layers = resource.Properties?.Layers;
      if (Array.isArray(layers) && layers.length > 5)
        problems.push({ resource: logicalId, message: `${layers.length} layers; Lambda takes 5` });
    }
  }
  return problems;
}
