import { Stack } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';

/**
 * A resource as cdk-nag names it in a finding's id (`AwsSolutions-IAM5[Resource::<this>]`):
 * the resolved value with `Ref` and `Fn::GetAtt` written `<Name>` and `<Name.Attribute>`, and
 * `Fn::Join` joined. cdk-nag 3 matches acknowledgements exactly, so an acknowledgement of a
 * resource built from tokens needs this rendering.
 */
export function nagResourceName(scope: IConstruct, resource: string): string {
  return render(Stack.of(scope).resolve(resource));
}

function render(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    if ('Fn::Join' in object) {
      const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
      return parts.map(render).join(separator);
    }
    if ('Ref' in object) return `<${String(object.Ref)}>`;
    if ('Fn::GetAtt' in object) return `<${(object['Fn::GetAtt'] as string[]).join('.')}>`;
  }
  throw new Error(`cannot name ${JSON.stringify(value)} as cdk-nag does`);
}

/** The execution role of `fn`, where acknowledgements of its policies' findings go; a function without one is a defect of the stack. */
export function executionRoleOf(fn: IFunction): IRole {
  if (fn.role === undefined) throw new Error(`${fn.node.id} has no execution role`);
  return fn.role;
}
