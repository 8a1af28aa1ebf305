import { SANDBOX_HISTORY_MCP_PATH } from './mcp/paths.ts';
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
    case 'AWS::Lambda::Version':
    case 'AWS::StepFunctions::StateMachineVersion':
    case 'AWS::StepFunctions::StateMachineAlias':
      return qualifiedArn(template, logicalId, resource);
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
  if (resource.Type === 'AWS::Lambda::Version' && attribute === 'Version') return LOCAL_VERSION;
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
      return resource.Properties?.AuthType === 'AWS_IAM'
        ? `${names.baseUrl}${SANDBOX_HISTORY_MCP_PATH}`
        : `${names.baseUrl}/slack/events`;
    case 'AWS::StepFunctions::StateMachine':
      return localArn('states', `stateMachine:${logicalId}`);
    case 'AWS::StepFunctions::StateMachineVersion':
    case 'AWS::StepFunctions::StateMachineAlias':
      return qualifiedArn(template, logicalId, resource);
    default:
      return localArn('unknown', logicalId);
  }
}

/**
 * The number of every published version in the sandbox: it deploys once, so each function and
 * each state machine has exactly one version (sandbox.ts refuses a template with more).
 */
export const LOCAL_VERSION = '1';

/**
 * The ARN of a Lambda version, a state machine version or a state machine alias: its
 * function's or state machine's ARN with the version number or alias name after it.
 */
function qualifiedArn(
  template: CloudFormationTemplate,
  logicalId: string,
  resource: TemplateResource,
): string {
  const properties = resource.Properties ?? {};
  switch (resource.Type) {
    case 'AWS::Lambda::Version':
      return `${localArn('lambda', `function:${targetOf(logicalId, properties.FunctionName)}`)}:${LOCAL_VERSION}`;
    case 'AWS::StepFunctions::StateMachineVersion':
      return `${localArn('states', `stateMachine:${targetOf(logicalId, properties.StateMachineArn)}`)}:${LOCAL_VERSION}`;
    default: {
      const preference = properties.DeploymentPreference as Record<string, Json> | undefined;
      const routes = properties.RoutingConfiguration as Record<string, Json>[] | undefined;
      const versionId = targetOf(
        logicalId,
        preference?.StateMachineVersionArn ?? routes?.[0]?.StateMachineVersionArn,
      );
      const version = template.Resources[versionId];
      if (version?.Type !== 'AWS::StepFunctions::StateMachineVersion') {
        throw new UnsupportedTemplateError(`alias ${logicalId}: ${versionId} is not a state machine version`);
      }
      const machine = targetOf(versionId, version.Properties?.StateMachineArn);
      return localArn('states', `stateMachine:${machine}:${String(properties.Name ?? logicalId)}`);
    }
  }
}

/** The logical id a property refers to (`Ref` or `Fn::GetAtt`): what a version or alias belongs to. */
export function targetOf(logicalId: string, value: Json | undefined): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    if (typeof value.Ref === 'string') return value.Ref;
    const getAtt = value['Fn::GetAtt'];
    if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return getAtt[0];
  }
  throw new UnsupportedTemplateError(
    `${logicalId}: the sandbox reads a version's or alias's target only as a Ref or Fn::GetAtt`,
  );
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
