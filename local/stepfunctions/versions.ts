import { StepFunctionsApiError, stateMachineDoesNotExist } from './errors.ts';
import { STATE_MACHINE_ARN } from './execution.ts';

/**
 * State machine versions and aliases, as `AWS::StepFunctions::StateMachineVersion` and
 * `AWS::StepFunctions::StateMachineAlias` publish them: a version is a number under the state
 * machine (`...:stateMachine:Name:1`), an alias a name (`...:stateMachine:Name:live`) that
 * points at one version. A start through either runs that version's definition; the
 * execution is named under the state machine itself, and remembers the version and alias it
 * started through, as DescribeExecution reports them.
 *
 * The sandbox deploys once: a state machine's definition never changes after it is
 * registered, so a version is its state machine as registered.
 */

/** `arn:...:stateMachine:Name:<version or alias>` */
const QUALIFIED_ARN = /^(arn:[^:]+:states:[^:]*:[^:]*:stateMachine:[^:]+):([A-Za-z0-9_-]+)$/;

/** What a start names: the state machine, and the version and alias it went through. */
export interface StartTarget {
  readonly stateMachineArn: string;
  readonly versionArn?: string;
  readonly aliasArn?: string;
}

export class PublishedVersions {
  /** Version ARN -> its state machine's ARN. */
  private readonly versions = new Map<string, string>();
  /** Alias ARN -> the version ARN it points at. */
  private readonly aliases = new Map<string, string>();

  /** Publishes the next version of a registered state machine; returns its ARN. */
  publishVersion(stateMachineArn: string): string {
    const published = [...this.versions.values()].filter((arn) => arn === stateMachineArn).length;
    const versionArn = `${stateMachineArn}:${published + 1}`;
    this.versions.set(versionArn, stateMachineArn);
    return versionArn;
  }

  /** Creates (or moves) the alias `name` of the version's state machine to the version. */
  setAlias(name: string, versionArn: string): string {
    const stateMachineArn = this.versions.get(versionArn);
    if (stateMachineArn === undefined) {
      throw new StepFunctionsApiError('ResourceNotFound', `Version Does Not Exist: '${versionArn}'`);
    }
    if (/^\d+$/.test(name)) {
      throw new StepFunctionsApiError('ValidationException', `An alias name cannot be a number: '${name}'`);
    }
    const aliasArn = `${stateMachineArn}:${name}`;
    this.aliases.set(aliasArn, versionArn);
    return aliasArn;
  }

  /** The state machine (and version, alias) an ARN given to StartExecution names. */
  resolve(arn: string): StartTarget {
    if (STATE_MACHINE_ARN.test(arn)) return { stateMachineArn: arn };
    if (!QUALIFIED_ARN.test(arn)) return { stateMachineArn: arn };
    const versionArn = this.aliases.get(arn);
    if (versionArn !== undefined) {
      return { stateMachineArn: this.versions.get(versionArn) as string, versionArn, aliasArn: arn };
    }
    const stateMachineArn = this.versions.get(arn);
    if (stateMachineArn !== undefined) return { stateMachineArn, versionArn: arn };
    throw stateMachineDoesNotExist(arn);
  }
}
