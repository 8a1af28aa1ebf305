import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { INTEGRATION_ERRORS } from '../../statemachines/error-names.ts';
import { KERNEL_APPROVAL_PROBE_MODULE } from '../fixtures/approval-probe.ts';
import {
  type AslState,
  allStates,
  definitions,
  probeStack,
  renderIntrinsics,
  resourcesOfType,
  templateOf,
} from '../infra/template.ts';
import { payloadProblems } from './payload-contract.ts';

/** The common error of AWS APIs the graphs name (stated here, not imported: the value is what this test checks). */
const AWS_COMMON_ERRORS = { serviceUnavailable: 'ServiceUnavailable' } as const;

/** The metadata key under which each function names its entry file (stated here, not imported: the value is what this test checks). */
const ENTRY_METADATA_KEY = 'slack-agents:entry';

/**
 * The contract between the state machines and their Lambdas, read from the synthesized
 * templates: every Lambda task's payload carries the fields its handler's input schema
 * requires and no field it does not know, and every error a Retry or Catch names is one some
 * code can raise (an error class of ours, a service's exception, or a `States.*` error).
 */

const templates: Template[] = [
  Template.fromStack(probeStack().stack),
  templateOf({
    config: {
      bugInvestigation: { repository: 'demo/webshop' },
      issuePipeline: { repository: 'demo/webshop' },
    },
  }),
  templateOf({
    modules: [KERNEL_APPROVAL_PROBE_MODULE],
    config: { channels: { approvalProbe: 'C_APPROVALS' } },
  }),
];

interface LambdaTask {
  machine: string;
  state: string;
  entry: string;
  payload: unknown;
}

function lambdaTasks(template: Template): LambdaTask[] {
  const entries = new Map<string, string>();
  for (const [id, resource] of Object.entries(resourcesOfType(template, 'AWS::Lambda::Function'))) {
    const entry = resource.Metadata?.[ENTRY_METADATA_KEY];
    if (typeof entry === 'string') entries.set(`<${id}.Arn>`, entry);
  }
  // A task invokes the function's version published by the same deploy: the version's function.
  for (const [id, version] of Object.entries(resourcesOfType(template, 'AWS::Lambda::Version'))) {
    const fn = (version.Properties?.FunctionName as { Ref?: string } | undefined)?.Ref;
    const entry = fn === undefined ? undefined : entries.get(`<${fn}.Arn>`);
    if (entry !== undefined) entries.set(`<${id}>`, entry);
  }
  const found: LambdaTask[] = [];
  for (const [machine, definition] of definitions(template)) {
    for (const [state, task] of allStates(definition)) {
      if (task.Type !== 'Task' || !String(task.Resource).includes(':states:::lambda:invoke')) continue;
      const parameters = task.Parameters as Record<string, unknown>;
      const functionName = renderIntrinsics(parameters.FunctionName);
      const entry = entries.get(functionName);
      if (entry === undefined) throw new Error(`${machine}/${state}: no function ${functionName}`);
      found.push({ machine, state, entry, payload: parameters.Payload ?? parameters['Payload.$'] });
    }
  }
  return found;
}

const tasks = templates.flatMap(lambdaTasks);

async function inputSchemaOf(entry: string): Promise<z.ZodType | undefined> {
  const module = (await import(/* @vite-ignore */ pathToFileURL(resolve(entry)).href)) as {
    handler?: { inputSchema?: unknown };
  };
  const schema = module.handler?.inputSchema;
  return schema instanceof z.ZodType ? schema : undefined;
}

describe('Lambda task payloads', () => {
  it('are found in every synthesized state machine', () => {
    expect(tasks.length).toBeGreaterThan(50);
    expect(new Set(tasks.map((t) => t.machine)).size).toBeGreaterThanOrEqual(6);
  });

  it("carry exactly the fields their handler's input schema knows, with the values it takes", async () => {
    const problems: string[] = [];
    const schemas = new Map<string, z.ZodType | undefined>();
    for (const task of tasks) {
      if (!schemas.has(task.entry)) schemas.set(task.entry, await inputSchemaOf(task.entry));
      const schema = schemas.get(task.entry);
      if (schema === undefined) {
        problems.push(`${task.machine}/${task.state}: ${task.entry} exports no handler with an input schema`);
        continue;
      }
      for (const problem of payloadProblems(schema, task.payload)) {
        problems.push(`${task.machine}/${task.state} (${task.entry}): ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

/** The names our error classes give themselves (`override readonly name = '...'`). */
function ourErrorNames(dir: string): Set<string> {
  const names = new Set<string>();
  const walk = (path: string) => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (full.endsWith('.ts')) {
        for (const match of readFileSync(full, 'utf8').matchAll(/readonly name = '([A-Za-z.]+)'/g)) {
          names.add(match[1] ?? '');
        }
      }
    }
  };
  walk(dir);
  return names;
}

/** The exception classes an AWS SDK client exports (its errors' names). */
async function sdkExceptions(client: string): Promise<Set<string>> {
  const module = (await import(client)) as Record<string, unknown>;
  return new Set(
    Object.entries(module)
      .filter(
        ([, value]) =>
          typeof value === 'function' && (value as { prototype: unknown }).prototype instanceof Error,
      )
      .map(([name]) => name),
  );
}

/** Names no class carries: the integrations' own errors and AWS's common errors (error-names.ts). */
const DOCUMENTED = new Set<string>([
  ...Object.values(INTEGRATION_ERRORS),
  ...Object.values(AWS_COMMON_ERRORS),
]);

describe('Retry and Catch error names', () => {
  it('each name an error some code raises', async () => {
    const ours = ourErrorNames('lambdas');
    const services: Record<string, Set<string>> = {
      DynamoDB: await sdkExceptions('@aws-sdk/client-dynamodb'),
      CodeBuild: await sdkExceptions('@aws-sdk/client-codebuild'),
    };
    // A function's own code lets the SDK's errors of the services it calls through, by name.
    const passedThrough = new Set([
      ...(services.DynamoDB ?? []),
      ...(await sdkExceptions('@aws-sdk/client-sfn')),
    ]);
    const known = (name: string): boolean => {
      if (name.startsWith('States.') || DOCUMENTED.has(name)) return true;
      const dot = name.indexOf('.');
      if (dot > 0) return services[name.slice(0, dot)]?.has(name.slice(dot + 1)) ?? false;
      return ours.has(name) || passedThrough.has(name);
    };
    const unknown: string[] = [];
    let checked = 0;
    for (const template of templates) {
      for (const [machine, definition] of definitions(template)) {
        for (const [state, task] of allStates(definition)) {
          const handlers = [
            ...((task.Retry as AslState[] | undefined) ?? []),
            ...((task.Catch as AslState[] | undefined) ?? []),
          ];
          for (const name of handlers.flatMap((h) => (h.ErrorEquals as string[] | undefined) ?? [])) {
            checked += 1;
            if (!known(name)) unknown.push(`${machine}/${state}: ${name}`);
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect([...new Set(unknown)]).toEqual([]);
  });
});

describe('the payload check itself', () => {
  const Input = z.discriminatedUnion('op', [
    z.object({ op: z.literal('start'), conversationId: z.string(), channel: z.string() }),
    z.object({ op: z.literal('finish'), conversationId: z.string(), note: z.string().optional() }),
  ]);

  it('accepts JSONPath values as present and literal values its schema takes', () => {
    expect(payloadProblems(Input, { op: 'start', 'conversationId.$': '$.id', 'channel.$': '$.c' })).toEqual(
      [],
    );
    expect(payloadProblems(Input, { op: 'finish', 'conversationId.$': '$.id' })).toEqual([]);
  });

  it('names a field the schema does not know, one it requires, and a literal it refuses', () => {
    expect(payloadProblems(Input, { op: 'finish', 'conversationId.$': '$.id', chanel: 'C1' })).toEqual([
      '$.chanel: not a field of the input schema',
    ]);
    expect(payloadProblems(Input, { op: 'start', 'conversationId.$': '$.id' })).toEqual([
      '$.channel: required by the input schema, missing from the payload',
    ]);
    expect(payloadProblems(Input, { op: 'stop', 'conversationId.$': '$.id' })).not.toEqual([]);
  });
});
