import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { AnyWorkflowModule, ModulePermission } from '../statemachines/workflow-module.ts';
import type { KernelFunction } from './constructs/kernel-function.ts';
import { nagResourceName } from './nag-resource.ts';

/** The module's extra permissions under its settings (`WorkflowModule.permissions`), on its deployed functions. */
export function grantPermissions(
  module: AnyWorkflowModule,
  settings: unknown,
  disabled: ReadonlySet<string>,
  functions: ReadonlyMap<string, KernelFunction>,
): void {
  const byFunction = (module.permissions?.(settings) ?? {}) as Record<string, readonly ModulePermission[]>;
  for (const [id, permissions] of Object.entries(byFunction)) {
    if (disabled.has(id)) continue;
    const fn = requireFn(functions, id);
    const stack = Stack.of(fn);
    for (const permission of permissions) {
      const resources = permission.resources.map((resource) =>
        typeof resource === 'string'
          ? resource
          : stack.formatArn({
              service: resource.service,
              resource: resource.resource,
              resourceName: resource.resourceName,
              arnFormat:
                resource.separator === ':' ? ArnFormat.COLON_RESOURCE_NAME : ArnFormat.SLASH_RESOURCE_NAME,
            }),
      );
      fn.addToRolePolicy(
        new PolicyStatement({ effect: Effect.ALLOW, actions: [...permission.actions], resources }),
      );
      acknowledgeWildcards(fn, resources, permission);
    }
  }
}

/** Acknowledges cdk-nag's wildcard finding on each resource with a `*`, with the permission's own reason. */
function acknowledgeWildcards(
  fn: KernelFunction,
  resources: readonly string[],
  permission: ModulePermission,
): void {
  const role = fn.role;
  if (role === undefined) throw new Error(`${fn.node.id} has no execution role`);
  for (const resource of resources) {
    const name = nagResourceName(fn, resource);
    if (!name.includes('*')) continue;
    if (permission.wildcardReason === undefined) {
      throw new Error(
        `${fn.node.id}: ${permission.actions.join(', ')} on ${name} has a wildcard without a reason (ModulePermission.wildcardReason)`,
      );
    }
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${name}]`,
      reason: `${permission.actions.join(', ')}: ${permission.wildcardReason}`,
    });
  }
}

function requireFn(functions: ReadonlyMap<string, KernelFunction>, id: string): KernelFunction {
  const fn = functions.get(id);
  if (fn === undefined) throw new Error(`function "${id}" is not deployed`);
  return fn;
}
