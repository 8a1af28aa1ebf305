import type { StateMachine } from 'aws-local-stepfunctions';
import { prepareDefinition } from './definition.ts';
import { StepFunctionsApiError, stateMachineDoesNotExist } from './errors.ts';
import {
  DEFAULT_ROLE_ARN,
  invalidArn,
  type RegisteredMachine,
  STATE_MACHINE_ARN,
  type StateMachineDescription,
  type StateMachineRegistration,
} from './execution.ts';
import { PublishedVersions, type StartTarget } from './versions.ts';

/** What registering a definition needs from the runtime that will run it. */
export interface MachineRegistrySettings {
  readonly timeScale: number;
  readonly hasDynamoDb: boolean;
  readonly hasCodeBuild: boolean;
  readonly now: () => Date;
  /** What aws-local-stepfunctions runs for a prepared definition. */
  readonly runnerOf: (prepared: RegisteredMachine['prepared']) => StateMachine;
}

/**
 * The state machines the sandbox deployed, with their published versions and aliases: what
 * CreateStateMachine, DescribeStateMachine, ListStateMachines, PublishStateMachineVersion and
 * CreateStateMachineAlias keep. Executions are the runtime's (runtime.ts); a start asks here
 * which definition an ARN (plain, version or alias) names.
 */
export class StateMachineRegistry {
  private readonly machines = new Map<string, RegisteredMachine>();
  private readonly versions = new PublishedVersions();

  constructor(private readonly settings: MachineRegistrySettings) {}

  register(registration: StateMachineRegistration): StateMachineDescription {
    const { arn, name } = registration;
    if (!STATE_MACHINE_ARN.test(arn)) throw invalidArn(arn);
    const prepared = prepareDefinition(registration.definition, {
      timeScale: this.settings.timeScale,
      hasDynamoDb: this.settings.hasDynamoDb,
      hasCodeBuild: this.settings.hasCodeBuild,
    });
    const existing = this.machines.get(arn);
    if (existing) {
      // As CreateStateMachine: idempotent for the same definition, a conflict otherwise.
      if (existing.prepared.source === prepared.source) return existing.description;
      throw new StepFunctionsApiError('StateMachineAlreadyExists', `State Machine Already Exists: '${arn}'`);
    }
    const description: StateMachineDescription = {
      stateMachineArn: arn,
      name,
      definition: prepared.source,
      roleArn: registration.roleArn ?? DEFAULT_ROLE_ARN,
      type: 'STANDARD',
      status: 'ACTIVE',
      creationDate: this.settings.now(),
    };
    this.machines.set(arn, { description, prepared, runner: this.settings.runnerOf(prepared) });
    return description;
  }

  list(): StateMachineDescription[] {
    return [...this.machines.values()].map((machine) => machine.description);
  }

  /** The registered state machine `arn`; StateMachineDoesNotExist when there is none. */
  get(arn: string): RegisteredMachine {
    if (!STATE_MACHINE_ARN.test(arn)) throw invalidArn(arn);
    const machine = this.machines.get(arn);
    if (!machine) throw stateMachineDoesNotExist(arn);
    return machine;
  }

  /** The registered state machine `arn`, if there is one (a saved execution's may be gone). */
  find(arn: string): RegisteredMachine | undefined {
    return this.machines.get(arn);
  }

  /** Publishes a version of a registered state machine (its definition as registered); returns its ARN. */
  publishVersion(stateMachineArn: string): string {
    this.get(stateMachineArn);
    return this.versions.publishVersion(stateMachineArn);
  }

  /** Points the alias `name` at a published version; returns the alias's ARN. */
  setAlias(name: string, versionArn: string): string {
    return this.versions.setAlias(name, versionArn);
  }

  /** The state machine an ARN given to StartExecution names, and the version and alias it went through. */
  resolve(arn: string): StartTarget & { machine: RegisteredMachine } {
    const target = this.versions.resolve(arn);
    return { ...target, machine: this.get(target.stateMachineArn) };
  }
}
