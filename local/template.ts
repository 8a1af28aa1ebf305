/**
 * Reads the synthesized CloudFormation template the way the sandbox needs it: which tables,
 * queues, functions, state machines and wiring it declares, with intrinsic functions
 * resolved to the sandbox's local names. The sandbox runs what `cdk deploy` would deploy,
 * never a hand-kept copy.
 */

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ACCOUNT = '000000000000';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface TemplateResource {
  Type: string;
  Properties?: Record<string, Json>;
  Metadata?: Record<string, Json>;
}

export interface CloudFormationTemplate {
  Resources: Record<string, TemplateResource>;
}

export class UnsupportedTemplateError extends Error {
  override readonly name = 'UnsupportedTemplateError';
}

/** What a logical id resolves to for `Ref` and `Fn::GetAtt`, per resource type. */
export interface LocalNames {
  baseUrl: string;
}

export function localArn(service: string, resource: string): string {
  return `arn:aws:${service}:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${resource}`;
}

/** The names the sandbox gives each resource (tables keep their logical id as name, and so on). */
export function resourceRef(template: CloudFormationTemplate, logicalId: string, names: LocalNames): string {
  const resource = template.Resources[logicalId];
  if (!resource) throw new UnsupportedTemplateError(`Ref to unknown resource ${logicalId}`);
  switch (resource.Type) {
    case 'AWS::DynamoDB::Table':
      return tableName(logicalId, resource);
    case 'AWS::SQS::Queue':
      return `${names.baseUrl}/${LOCAL_ACCOUNT}/${queueName(logicalId, resource)}`;
    case 'AWS::Lambda::Function':
      return logicalId;
    case 'AWS::StepFunctions::StateMachine':
      return localArn('states', `stateMachine:${logicalId}`);
    case 'AWS::SecretsManager::Secret':
      return localArn('secretsmanager', `secret:${logicalId}`);
    default:
      return logicalId;
  }
}

export function resourceAttribute(
  template: CloudFormationTemplate,
  logicalId: string,
  attribute: string,
  names: LocalNames,
): string {
  const resource = template.Resources[logicalId];
  if (!resource) throw new UnsupportedTemplateError(`Fn::GetAtt of unknown resource ${logicalId}`);
  if (
    attribute !== 'Arn' &&
    attribute !== 'QueueName' &&
    attribute !== 'QueueUrl' &&
    attribute !== 'FunctionUrl'
  ) {
    return `${logicalId}.${attribute}`;
  }
  switch (resource.Type) {
    case 'AWS::DynamoDB::Table':
      return localArn('dynamodb', `table/${tableName(logicalId, resource)}`);
    case 'AWS::SQS::Queue':
      if (attribute === 'QueueName') return queueName(logicalId, resource);
      if (attribute === 'QueueUrl') return resourceRef(template, logicalId, names);
      return localArn('sqs', queueName(logicalId, resource));
    case 'AWS::Lambda::Function':
      return localArn('lambda', `function:${logicalId}`);
    case 'AWS::Lambda::Url':
      return `${names.baseUrl}/slack/events`;
    case 'AWS::StepFunctions::StateMachine':
      return localArn('states', `stateMachine:${logicalId}`);
    default:
      return localArn('unknown', logicalId);
  }
}

function tableName(logicalId: string, resource: TemplateResource): string {
  const name = resource.Properties?.TableName;
  return typeof name === 'string' ? name : logicalId;
}

function queueName(logicalId: string, resource: TemplateResource): string {
  const name = resource.Properties?.QueueName;
  if (typeof name === 'string') return name;
  return resource.Properties?.FifoQueue === true ? `${logicalId}.fifo` : logicalId;
}

const PSEUDO: Record<string, string> = {
  'AWS::Region': LOCAL_REGION,
  'AWS::AccountId': LOCAL_ACCOUNT,
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::StackName': 'SlackAgents',
  'AWS::NoValue': '',
};

/** Resolves Ref, Fn::GetAtt, Fn::Join, Fn::Sub and Fn::Select to local values. */
export function resolveIntrinsics(value: Json, template: CloudFormationTemplate, names: LocalNames): Json {
  if (Array.isArray(value)) return value.map((v) => resolveIntrinsics(v, template, names));
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length === 1) {
    const [fn] = keys;
    const arg = value[fn as string] as Json;
    switch (fn) {
      case 'Ref': {
        const name = String(arg);
        return PSEUDO[name] ?? resourceRef(template, name, names);
      }
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = Array.isArray(arg) ? arg.map(String) : String(arg).split('.');
        return resourceAttribute(template, String(logicalId), String(attribute), names);
      }
      case 'Fn::Join': {
        const [separator, parts] = arg as [string, Json[]];
        return (resolveIntrinsics(parts, template, names) as Json[]).map(String).join(separator);
      }
      case 'Fn::Select': {
        const [index, list] = arg as [number, Json];
        return (resolveIntrinsics(list, template, names) as Json[])[Number(index)] ?? null;
      }
      case 'Fn::Sub': {
        const [text, vars] = typeof arg === 'string' ? [arg, {}] : (arg as [string, Record<string, Json>]);
        return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
          if (name in vars) return String(resolveIntrinsics(vars[name] as Json, template, names));
          if (name in PSEUDO) return PSEUDO[name] as string;
          const [logicalId, attribute] = name.split('.');
          return attribute
            ? resourceAttribute(template, String(logicalId), attribute, names)
            : resourceRef(template, String(logicalId), names);
        });
      }
    }
  }
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, resolveIntrinsics(v, template, names)]),
  );
}

export function resourcesOfType(
  template: CloudFormationTemplate,
  type: string,
): [string, TemplateResource][] {
  return Object.entries(template.Resources).filter(([, r]) => r.Type === type);
}
