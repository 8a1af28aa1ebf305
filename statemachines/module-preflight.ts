/**
 * What a workflow module's deploy needs beyond the stack under its settings: what
 * `npm run preflight` lists among the steps that remain, and checks live
 * (infra/preflight/deploy-steps.ts, github-checks.ts). A module declares it with `preflight`.
 */
export interface ModulePreflight {
  /**
   * The GitHub repositories (`owner/repo`) its functions work on. Any at all, and the deploy
   * needs the GitHub credentials secret, CodeBuild's GitHub source credentials and the GitHub
   * webhook; the live preflight checks the App's installation on each.
   * @default - none
   */
  readonly repositories?: readonly string[];
  /**
   * Secrets the stack creates for it that people fill after the deploy: the stack output
   * naming each, and what goes in (its shape, with placeholders).
   * @default - none
   */
  readonly secrets?: readonly ModuleSecret[];
  /**
   * Steps after the deploy and the secrets that it alone needs (a webhook to point at the
   * stack); `$(out <Output>)` stands for a stack output.
   * @default - none
   */
  readonly steps?: readonly string[];
}

/** A secret the stack creates and people fill: its stack output, and what goes in. */
export interface ModuleSecret {
  readonly output: string;
  readonly content: string;
}

/** The preflight of a module that works on one repository, when its settings name one. */
export function repositoryPreflight(repository: string | undefined): ModulePreflight {
  return { repositories: repository === undefined ? [] : [repository] };
}
