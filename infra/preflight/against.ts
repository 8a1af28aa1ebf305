import { existsSync, readFileSync } from 'node:fs';
import { CloudFormationClient, GetTemplateCommand } from '@aws-sdk/client-cloudformation';
import type { InFlightReport, TemplateJson } from './template-diff.ts';

/** Reading a deployed stack's template: the CloudFormation call the comparison makes. */
export type GetTemplate = (stackName: string) => Promise<string | undefined>;

const deployedTemplate: GetTemplate = async (stackName) => {
  const client = new CloudFormationClient({});
  try {
    // Processed: the template as deployed, not as it was uploaded.
    const { TemplateBody } = await client.send(
      new GetTemplateCommand({ StackName: stackName, TemplateStage: 'Processed' }),
    );
    return TemplateBody;
  } finally {
    client.destroy();
  }
};

class AgainstTemplateError extends Error {
  override readonly name = 'AgainstTemplateError';
}

/**
 * The template `--against` names: a template file (a previous deploy's `cdk.out/<stack>.template.json`)
 * or, when no such file exists, a deployed stack of that name (read with the current credentials).
 */
export async function againstTemplate(
  against: string,
  getTemplate: GetTemplate = deployedTemplate,
): Promise<TemplateJson> {
  const fromFile = existsSync(against);
  let text: string | undefined;
  try {
    text = fromFile ? readFileSync(against, 'utf8') : await getTemplate(against);
  } catch (error) {
    throw new AgainstTemplateError(
      `could not read ${fromFile ? 'the template file' : 'the deployed stack'} ${against}`,
      {
        cause: error,
      },
    );
  }
  if (text === undefined) throw new AgainstTemplateError(`the stack ${against} returned no template`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new AgainstTemplateError(
      `${against} is not a JSON template (synthesize with cdk synth --json, or name a stack)`,
      {
        cause: error,
      },
    );
  }
  if (parsed === null || typeof parsed !== 'object' || !('Resources' in parsed)) {
    throw new AgainstTemplateError(`${against} has no Resources: not a CloudFormation template`);
  }
  return parsed as TemplateJson;
}

/** The comparison's lines as the preflight prints them; the exit status is 1 when a problem remains. */
export function printInFlight(report: InFlightReport, out: (line: string) => void): number {
  for (const line of report.lines) out(`  ${line}`);
  for (const problem of report.problems) out(`  FIX ${problem}`);
  if (report.problems.length > 0) {
    out(`${report.problems.length} change(s) would break conversations in flight.`);
    return 1;
  }
  out('  ok: conversations in flight keep their versions');
  return 0;
}
