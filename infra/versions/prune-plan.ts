/**
 * Which published versions no execution can still call: the state machine versions and Lambda
 * versions a deploy left behind (they are retained, docs/operations.md "Upgrading and rolling
 * back"), decided from an inventory of the account. Pure: the inventory is read, and the
 * deletions made, by the caller (infra/versions/aws-inventory.ts).
 */

export interface StateMachineVersion {
  readonly arn: string;
  readonly createdAt: Date;
  /** The version's definition (ASL JSON), which names the Lambda versions its tasks invoke. */
  readonly definition: string;
  /** Executions started on this version and still running. */
  readonly running: number;
}

export interface StateMachineInventory {
  readonly arn: string;
  /** The versions every alias of the state machine routes to (one, or two during a rollout). */
  readonly aliasTargets: readonly string[];
  readonly versions: readonly StateMachineVersion[];
}

export interface FunctionVersion {
  /** The qualified ARN (`...:function:<name>:<n>`). */
  readonly arn: string;
  readonly version: string;
  readonly lastModified: Date;
}

export interface FunctionInventory {
  readonly name: string;
  /** The versions the function's aliases point at. */
  readonly aliasTargets: readonly string[];
  /** Its published versions (not `$LATEST`). */
  readonly versions: readonly FunctionVersion[];
}

export interface Inventory {
  readonly stateMachines: readonly StateMachineInventory[];
  readonly functions: readonly FunctionInventory[];
}

export interface Decision {
  readonly arn: string;
  readonly delete: boolean;
  readonly reason: string;
}

export interface PrunePlan {
  readonly stateMachineVersions: readonly Decision[];
  readonly functionVersions: readonly Decision[];
}

/** The longest an execution may run: Step Functions' limit for a standard workflow. */
const LONGEST_EXECUTION_SECONDS = 365 * 86_400;
const HOUR_SECONDS = 3_600;

/**
 * The longest one wait of a definition, in seconds: the `TimeoutSeconds` (or, without one, the
 * `HeartbeatSeconds`) of each task that waits for a token, and each Wait state's `Seconds`. A
 * task that waits for a token without either waits as long as an execution may run.
 */
function longestWaitSeconds(definition: string): number {
  let longest = 0;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) visit(item);
    else if (node !== null && typeof node === 'object') {
      const state = node as Record<string, unknown>;
      if (state.Type === 'Task' && String(state.Resource ?? '').endsWith('.waitForTaskToken')) {
        const seconds =
          numberOf(state.TimeoutSeconds) ?? numberOf(state.HeartbeatSeconds) ?? LONGEST_EXECUTION_SECONDS;
        longest = Math.max(longest, seconds);
      }
      if (state.Type === 'Wait') longest = Math.max(longest, numberOf(state.Seconds) ?? 0);
      for (const value of Object.values(state)) visit(value);
    }
  };
  visit(JSON.parse(definition));
  return longest;
}

const numberOf = (value: unknown) => (typeof value === 'number' ? value : undefined);

/**
 * The plan: a state machine version is deleted when no alias routes to it, it is not the one
 * before the alias's (the rollback target), no execution started on it is running, and it is
 * older than its definition's longest wait plus `marginHours` (the running count is read a
 * moment before the deletion: an execution started through an alias in between runs the alias's
 * version, never this one). A Lambda version is deleted when no kept state machine version names
 * it, no alias of its function points at it, it is not its function's newest, and it is older
 * than the longest wait of every definition plus the margin.
 */
export function planPruning(inventory: Inventory, now: Date, marginHours: number): PrunePlan {
  const margin = marginHours * HOUR_SECONDS;
  const ageSeconds = (at: Date) => (now.getTime() - at.getTime()) / 1000;
  const stateMachineVersions: Decision[] = [];
  const keptDefinitions: string[] = [];
  let longestWait = 0;

  for (const machine of inventory.stateMachines) {
    const newestTarget = Math.max(0, ...machine.aliasTargets.map(versionNumber));
    const rollback = machine.versions
      .map((v) => versionNumber(v.arn))
      .filter((n) => n < newestTarget && !machine.aliasTargets.some((t) => versionNumber(t) === n))
      .reduce((a, b) => Math.max(a, b), 0);
    for (const version of machine.versions) {
      const wait = longestWaitSeconds(version.definition);
      longestWait = Math.max(longestWait, wait);
      const keep = (reason: string) => {
        keptDefinitions.push(version.definition);
        stateMachineVersions.push({ arn: version.arn, delete: false, reason });
      };
      const hours = ((wait + margin) / HOUR_SECONDS).toFixed(0);
      if (machine.aliasTargets.includes(version.arn)) keep('an alias routes to it');
      else if (versionNumber(version.arn) === rollback)
        keep('the version before the alias’s: the rollback target');
      else if (version.running > 0) keep(`${version.running} execution(s) started on it still running`);
      else if (ageSeconds(version.createdAt) < wait + margin)
        keep(`younger than its longest wait plus the margin (${hours} h)`);
      else
        stateMachineVersions.push({
          arn: version.arn,
          delete: true,
          reason: `no execution can call it (older than ${hours} h)`,
        });
    }
  }

  const named = (arn: string) => keptDefinitions.some((definition) => definition.includes(`"${arn}"`));
  const functionVersions: Decision[] = [];
  for (const fn of inventory.functions) {
    const newest = Math.max(0, ...fn.versions.map((v) => Number(v.version)));
    for (const version of fn.versions) {
      const keep = (reason: string) => functionVersions.push({ arn: version.arn, delete: false, reason });
      if (named(version.arn)) keep('a kept state machine version invokes it');
      else if (fn.aliasTargets.includes(version.version)) keep('an alias of the function points at it');
      else if (Number(version.version) === newest) keep('the newest version of the function');
      else if (ageSeconds(version.lastModified) < longestWait + margin)
        keep(
          `younger than the longest wait plus the margin (${((longestWait + margin) / HOUR_SECONDS).toFixed(0)} h)`,
        );
      else
        functionVersions.push({
          arn: version.arn,
          delete: true,
          reason: 'no kept state machine version invokes it',
        });
    }
  }
  return { stateMachineVersions, functionVersions };
}

/** `...:stateMachine:Name:7` -> 7 */
function versionNumber(arn: string): number {
  const last = arn.slice(arn.lastIndexOf(':') + 1);
  return /^\d+$/.test(last) ? Number(last) : 0;
}
