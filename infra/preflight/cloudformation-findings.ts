import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What aws-cdk-lib's built-in CloudFormation validation found in a synthesized cloud assembly.
 * `cdk synth` runs the validation (the resource specification's schemas and rules) and only
 * prints its findings as warnings, so a property CloudFormation would refuse at deploy time
 * passes synthesis; the preflight reads the assembly's `validation-report.json` and reports each
 * finding as a problem instead.
 */

interface ValidationReport {
  readonly pluginReports?: readonly {
    readonly pluginName?: string;
    readonly violations?: readonly {
      readonly ruleName: string;
      readonly description: string;
      readonly violatingConstructs?: readonly { readonly constructPath?: string }[];
    }[];
  }[];
}

/** One line per finding and construct (`CloudFormation F3012 at Stack/Queue: ...`); none without a report. */
export function cloudFormationFindings(assemblyDirectory: string): string[] {
  const file = join(assemblyDirectory, 'validation-report.json');
  if (!existsSync(file)) return [];
  const report = JSON.parse(readFileSync(file, 'utf8')) as ValidationReport;
  const lines: string[] = [];
  for (const plugin of report.pluginReports ?? []) {
    for (const violation of plugin.violations ?? []) {
      const where = violation.violatingConstructs?.map((c) => c.constructPath ?? '?') ?? [];
      for (const path of where.length > 0 ? where : ['the stack'])
        lines.push(
          `CloudFormation ${violation.ruleName} at ${path}: ${violation.description.split('\n')[0]} (${plugin.pluginName ?? 'validation'})`,
        );
    }
  }
  return lines;
}
