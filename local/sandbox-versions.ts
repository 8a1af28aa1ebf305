import { LambdaFunctionNotFoundError } from './lambda/errors.ts';
import { logicalIdOfArn } from './sandbox-resources.ts';
import type { LocalStepFunctions } from './stepfunctions/runtime.ts';
import {
  type CloudFormationTemplate,
  type LocalNames,
  resolveIntrinsics,
  resourcesOfType,
  UnsupportedTemplateError,
} from './template.ts';

/**
 * The template's published versions in the sandbox: each `AWS::StepFunctions::StateMachineVersion`
 * is published in the Step Functions runtime and each `AWS::StepFunctions::StateMachineAlias`
 * points at its version, so the Router starts executions through the alias as in AWS; and each
 * `AWS::Lambda::Version` is a qualified function ARN a Task may invoke. A qualifier the template
 * does not publish fails as Lambda and Step Functions fail it: the function or state machine
 * does not exist.
 */

/** Publishes the template's state machine versions and aliases; fails when they disagree with the template's ARNs. */
export function publishStateMachineVersions(
  template: CloudFormationTemplate,
  names: LocalNames,
  stepFunctions: LocalStepFunctions,
): void {
  const resolve = (value: unknown) => String(resolveIntrinsics(value as never, template, names));
  for (const [logicalId, version] of resourcesOfType(template, 'AWS::StepFunctions::StateMachineVersion')) {
    const published = stepFunctions.publishVersion(resolve(version.Properties?.StateMachineArn));
    expectSame(logicalId, published, resolve({ Ref: logicalId }));
  }
  for (const [logicalId, alias] of resourcesOfType(template, 'AWS::StepFunctions::StateMachineAlias')) {
    const properties = alias.Properties ?? {};
    const preference = properties.DeploymentPreference as { StateMachineVersionArn?: unknown } | undefined;
    const routes = properties.RoutingConfiguration as { StateMachineVersionArn?: unknown }[] | undefined;
    if (routes !== undefined && routes.length > 1) {
      throw new UnsupportedTemplateError(
        `alias ${logicalId}: the sandbox routes an alias to one version only`,
      );
    }
    const versionArn = resolve(preference?.StateMachineVersionArn ?? routes?.[0]?.StateMachineVersionArn);
    const aliasArn = stepFunctions.setAlias(String(properties.Name ?? logicalId), versionArn);
    expectSame(logicalId, aliasArn, resolve({ Ref: logicalId }));
  }
}

/** The qualified ARNs (`...:function:<id>:<version>`) of the template's Lambda versions. */
export function publishedFunctionVersions(template: CloudFormationTemplate, names: LocalNames): Set<string> {
  return new Set(
    resourcesOfType(template, 'AWS::Lambda::Version').map(([logicalId]) =>
      String(resolveIntrinsics({ Ref: logicalId }, template, names)),
    ),
  );
}

/**
 * The function (its logical id) an invoked ARN names. A qualified ARN must name a published
 * version (or `$LATEST`), as Lambda answers ResourceNotFound for any other.
 */
export function functionOfInvokedArn(arn: string, published: ReadonlySet<string>): string {
  const logicalId = logicalIdOfArn(arn);
  const qualifier = new RegExp(`:function:${logicalId}:([^:]+)$`).exec(arn)?.[1];
  if (qualifier === undefined || qualifier === '$LATEST') return logicalId;
  if (![...published].some((version) => version.endsWith(`:function:${logicalId}:${qualifier}`))) {
    throw new LambdaFunctionNotFoundError(arn);
  }
  return logicalId;
}

function expectSame(logicalId: string, published: string, inTemplate: string): void {
  if (published !== inTemplate) {
    throw new UnsupportedTemplateError(
      `${logicalId}: the sandbox published ${published}, the template expects ${inTemplate} (one version per state machine)`,
    );
  }
}
