import {
  type CloudFormationTemplate,
  type LocalNames,
  resolveIntrinsics,
  resourcesOfType,
} from '../template.ts';
import type { CreateProjectInput } from './model.ts';

/**
 * The CodeBuild projects of a synthesized template (`AWS::CodeBuild::Project`), as CreateProject
 * requests: the sandbox registers them so the stack's own projects exist, named as `Ref`
 * resolves them (the `Name` property, else the logical id).
 */
export function projectsFromTemplate(
  template: CloudFormationTemplate,
  names: LocalNames,
): CreateProjectInput[] {
  return resourcesOfType(template, 'AWS::CodeBuild::Project').map(([logicalId, resource]) => {
    const p = resolveIntrinsics(resource.Properties ?? {}, template, names) as Record<string, unknown>;
    const source = (p.Source ?? {}) as { Type?: string; Location?: string; BuildSpec?: string };
    const environment = (p.Environment ?? {}) as {
      Type?: string;
      Image?: string;
      ComputeType?: string;
      EnvironmentVariables?: { Name: string; Value: unknown; Type?: string }[];
    };
    const variables = (environment.EnvironmentVariables ?? []).map((v) => ({
      name: v.Name,
      value: String(v.Value),
      type: (v.Type ?? 'PLAINTEXT') as 'PLAINTEXT' | 'PARAMETER_STORE' | 'SECRETS_MANAGER',
    }));
    return {
      name: typeof p.Name === 'string' ? p.Name : logicalId,
      source: {
        type: source.Type ?? 'NO_SOURCE',
        ...(source.Location ? { location: source.Location } : {}),
        ...(source.BuildSpec ? { buildspec: source.BuildSpec } : {}),
      },
      ...(typeof p.SourceVersion === 'string' ? { sourceVersion: p.SourceVersion } : {}),
      artifacts: { type: String((p.Artifacts as { Type?: string } | undefined)?.Type ?? 'NO_ARTIFACTS') },
      environment: {
        type: environment.Type ?? 'LINUX_CONTAINER',
        image: environment.Image ?? 'aws/codebuild/standard:7.0',
        computeType: environment.ComputeType ?? 'BUILD_GENERAL1_SMALL',
        environmentVariables: variables,
      },
      serviceRole: String(p.ServiceRole ?? 'arn:aws:iam::000000000000:role/sandbox-codebuild'),
      ...(typeof p.TimeoutInMinutes === 'number' ? { timeoutInMinutes: p.TimeoutInMinutes } : {}),
    };
  });
}
