import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/**
 * cdk-nag 3 is a validation plugin, not an Aspect: `validateScope` runs the checks the synth
 * runs (`Validations.of(app).addPlugins(...)`) and returns the unacknowledged findings.
 */
export function unacknowledgedFindings(scope: IConstruct): string[] {
  const report = new AwsSolutionsChecks().validateScope(scope);
  return report.violations.flatMap((violation) =>
    violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`),
  );
}

/** Every acknowledgement in the scope, with its reason and where it was made. */
export function acknowledgments(scope: IConstruct): { id: string; reason: string; path: string }[] {
  return scope.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          // aws-cdk-lib records the id with its plugin namespace, as cdk-nag reads it back.
          id: id.replace(/^annotation::/i, ''),
          reason,
          path: construct.node.path,
        })),
      ),
  );
}
