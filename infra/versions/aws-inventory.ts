import { CloudFormationClient, paginateListStackResources } from '@aws-sdk/client-cloudformation';
import {
  DeleteFunctionCommand,
  LambdaClient,
  paginateListAliases,
  paginateListVersionsByFunction,
} from '@aws-sdk/client-lambda';
import {
  DeleteStateMachineVersionCommand,
  DescribeStateMachineAliasCommand,
  DescribeStateMachineCommand,
  ListExecutionsCommand,
  ListStateMachineAliasesCommand,
  type ListStateMachineAliasesCommandOutput,
  ListStateMachineVersionsCommand,
  type ListStateMachineVersionsCommandOutput,
  SFNClient,
} from '@aws-sdk/client-sfn';
import type { FunctionInventory, Inventory, PrunePlan, StateMachineInventory } from './prune-plan.ts';

/** The clients the inventory and the deletions use (the deploying account's credentials). */
export interface VersionClients {
  readonly cloudFormation: CloudFormationClient;
  readonly stepFunctions: SFNClient;
  readonly lambda: LambdaClient;
}

export function defaultVersionClients(): VersionClients {
  return {
    cloudFormation: new CloudFormationClient({}),
    stepFunctions: new SFNClient({}),
    lambda: new LambdaClient({}),
  };
}

/** The state machines and functions of the stack, with their published versions and aliases. */
export async function readInventory(stackName: string, clients: VersionClients): Promise<Inventory> {
  const machineArns: string[] = [];
  const functionNames: string[] = [];
  for await (const page of paginateListStackResources(
    { client: clients.cloudFormation },
    { StackName: stackName },
  )) {
    for (const resource of page.StackResourceSummaries ?? []) {
      if (resource.PhysicalResourceId === undefined) continue;
      if (resource.ResourceType === 'AWS::StepFunctions::StateMachine')
        machineArns.push(resource.PhysicalResourceId);
      if (resource.ResourceType === 'AWS::Lambda::Function') functionNames.push(resource.PhysicalResourceId);
    }
  }
  const stateMachines: StateMachineInventory[] = [];
  for (const arn of machineArns) stateMachines.push(await machineInventory(arn, clients.stepFunctions));
  const functions: FunctionInventory[] = [];
  for (const name of functionNames) functions.push(await functionInventory(name, clients.lambda));
  return { stateMachines, functions };
}

async function machineInventory(arn: string, sfn: SFNClient): Promise<StateMachineInventory> {
  const aliasTargets: string[] = [];
  const aliasPages = pages<ListStateMachineAliasesCommandOutput>((nextToken) =>
    sfn.send(new ListStateMachineAliasesCommand({ stateMachineArn: arn, nextToken })),
  );
  for await (const page of aliasPages) {
    for (const alias of page.stateMachineAliases ?? []) {
      const described = await sfn.send(
        new DescribeStateMachineAliasCommand({ stateMachineAliasArn: alias.stateMachineAliasArn }),
      );
      for (const route of described.routingConfiguration ?? [])
        if (route.stateMachineVersionArn !== undefined) aliasTargets.push(route.stateMachineVersionArn);
    }
  }
  const versions: StateMachineInventory['versions'][number][] = [];
  const versionPages = pages<ListStateMachineVersionsCommandOutput>((nextToken) =>
    sfn.send(new ListStateMachineVersionsCommand({ stateMachineArn: arn, nextToken })),
  );
  for await (const page of versionPages) {
    for (const { stateMachineVersionArn: versionArn, creationDate } of page.stateMachineVersions ?? []) {
      if (versionArn === undefined || creationDate === undefined) continue;
      const described = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: versionArn }));
      versions.push({
        arn: versionArn,
        createdAt: creationDate,
        definition: described.definition ?? '{}',
        running: await runningOn(versionArn, sfn),
      });
    }
  }
  return { arn, aliasTargets, versions };
}

/** Every page of a Step Functions list call, following `nextToken`. */
async function* pages<T extends { nextToken?: string | undefined }>(
  list: (nextToken: string | undefined) => Promise<T>,
): AsyncGenerator<T> {
  let nextToken: string | undefined;
  do {
    const page = await list(nextToken);
    yield page;
    nextToken = page.nextToken;
  } while (nextToken !== undefined);
}

/** Executions started on this version and still running (one is enough to keep it). */
async function runningOn(versionArn: string, sfn: SFNClient): Promise<number> {
  const { executions } = await sfn.send(
    new ListExecutionsCommand({ stateMachineArn: versionArn, statusFilter: 'RUNNING', maxResults: 1 }),
  );
  return executions?.length ?? 0;
}

async function functionInventory(name: string, lambda: LambdaClient): Promise<FunctionInventory> {
  const aliasTargets: string[] = [];
  for await (const page of paginateListAliases({ client: lambda }, { FunctionName: name })) {
    for (const alias of page.Aliases ?? []) {
      if (alias.FunctionVersion !== undefined) aliasTargets.push(alias.FunctionVersion);
      aliasTargets.push(...Object.keys(alias.RoutingConfig?.AdditionalVersionWeights ?? {}));
    }
  }
  const versions: FunctionInventory['versions'][number][] = [];
  for await (const page of paginateListVersionsByFunction({ client: lambda }, { FunctionName: name })) {
    for (const version of page.Versions ?? []) {
      if (version.Version === undefined || version.Version === '$LATEST' || version.FunctionArn === undefined)
        continue;
      versions.push({
        arn: version.FunctionArn,
        version: version.Version,
        lastModified: new Date(version.LastModified ?? 0),
      });
    }
  }
  return { name, aliasTargets, versions };
}

/**
 * Deletes what the plan marks: state machine versions first (each after asking once more
 * whether an execution started on it runs: one that does is kept and named), then the Lambda
 * versions, which only kept state machine versions could still name. Returns one line per act.
 */
export async function applyPlan(plan: PrunePlan, clients: VersionClients): Promise<string[]> {
  const lines: string[] = [];
  const kept = new Set<string>();
  for (const decision of plan.stateMachineVersions.filter((d) => d.delete)) {
    if ((await runningOn(decision.arn, clients.stepFunctions)) > 0) {
      kept.add(decision.arn);
      lines.push(`kept ${decision.arn}: an execution started on it since the inventory`);
      continue;
    }
    await clients.stepFunctions.send(
      new DeleteStateMachineVersionCommand({ stateMachineVersionArn: decision.arn }),
    );
    lines.push(`deleted ${decision.arn}`);
  }
  if (kept.size > 0) {
    lines.push(
      'Lambda versions left as they are: a state machine version kept late may name them; run again',
    );
    return lines;
  }
  for (const decision of plan.functionVersions.filter((d) => d.delete)) {
    const at = decision.arn.lastIndexOf(':');
    await clients.lambda.send(
      new DeleteFunctionCommand({
        FunctionName: decision.arn.slice(0, at),
        Qualifier: decision.arn.slice(at + 1),
      }),
    );
    lines.push(`deleted ${decision.arn}`);
  }
  return lines;
}
