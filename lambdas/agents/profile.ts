import type * as z from 'zod';
import type { ToolSpec } from '../tools/invocation.ts';
import type { AgentTurnInput } from './contract.ts';

/**
 * A role profile: the system prompt, the tools, the prompts of each turn, and
 * the structured result, which the model sends as the input of the final `submit_result`
 * tool. One module per role under `profiles/`; the runtime in `run-agent-turn.ts` is shared.
 */

/** The final tool every profile gets; its input schema is the profile's result schema. */
export const SUBMIT_TOOL = 'submit_result';

/** The name of the profile's final tool. */
export function submitToolOf(profile: Pick<AgentProfile<unknown, unknown>, 'submitTool'>): string {
  return profile.submitTool ?? SUBMIT_TOOL;
}

/** How a turn ended without a valid submission. */
export type UnfinishedTurn =
  /** The time budget or the tool-call cap ran out: the workflow runs another turn. */
  | { kind: 'out_of_budget'; reason: string; progress: string | undefined }
  /**
   * A failure after retries: the workflow escalates to people. `limit`: a bound held by code
   * (a conversation's budget or time limit, the platform's daily ceiling) stopped the turn, and
   * `error` says which in words for the people in the conversation. `model`: the model refused
   * the turn's call (an HTTP error no retry can fix: a rejected key, an unknown model), so no
   * agent could have done better; `error` is the API's answer.
   */
  | { kind: 'failed'; error: string; progress: string | undefined; limit?: true; model?: true };

export interface AgentProfile<Result, Output> {
  /** The role's name, the `profile` of AgentTurnInput, e.g. `bug_investigator`. */
  name: string;
  system: string;
  /** The tools offered to the model (each a Lambda, which validates its own arguments). */
  tools: readonly ToolSpec[];
  result: { schema: z.ZodType<Result>; description: string };
  /**
   * The name of the final tool whose input is the result (e.g. the issue pipeline's
   * `submit_triage`), so the model reads what it is submitting.
   * @default SUBMIT_TOOL (`submit_result`)
   */
  submitTool?: string;
  /**
   * A check of a schema-valid result against the turn's input (e.g. questions required below
   * the confidence threshold): a message rejects it, and the model corrects it like a schema error.
   * @default - every schema-valid result is accepted
   */
  check?(result: Result, input: AgentTurnInput): string | undefined;
  /** The user message that opens the turn (initial or continuation, by `input.mode`). */
  prompt(input: AgentTurnInput): string;
  /** The task output of a turn that ended with a valid submission. */
  output(result: Result, sessionId: string): Output;
  /** The task output of a turn that did not: always a value the workflow's Choice knows. */
  unfinished(end: UnfinishedTurn, sessionId: string): Output;
  /** The task output's schema, checked before the turn returns. */
  outputSchema: z.ZodType<Output>;
}

/**
 * The roles one AgentTurn function serves, by name: each workflow declares its own
 * (lambdas/workflows/<workflow>/profiles) and hands them to `createAgentTurnHandler`.
 */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds profiles of any result and output.
export type ProfileRegistry = Readonly<Record<string, AgentProfile<any, any>>>;

/** The task output of a registry's profile. */
export type ProfileOutput<R extends ProfileRegistry, P extends keyof R> =
  R[P] extends AgentProfile<infer _Result, infer Output> ? Output : never;

/** Declares a workflow's profiles, checking that each is filed under its own name. */
export function defineProfiles<const R extends ProfileRegistry>(profiles: R): R {
  for (const [key, profile] of Object.entries(profiles)) {
    if (profile.name !== key) throw new Error(`profile "${profile.name}" is registered as "${key}"`);
  }
  return profiles;
}

/**
 * A workflow's roles as its AgentTurn function loads them: each by name, loaded on the first
 * turn that runs it. The function's bundle keeps each role's module behind its `import()`, a
 * chunk of its own, so a cold start evaluates the prompts, tools and result schemas of the
 * role it runs, not of every role the workflow has (`npm run bench:cold-import`).
 */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds profiles of any result and output.
export type ProfileLoaders = Readonly<Record<string, () => Promise<AgentProfile<any, any>>>>;

/**
 * The registry of the one role `name`, loaded, for a turn of it; undefined when `loaders` has
 * no such role. A loaded role must be filed under its own name, as `defineProfiles` checks.
 */
export async function loadProfile(
  loaders: ProfileLoaders,
  name: string,
): Promise<ProfileRegistry | undefined> {
  const load = Object.hasOwn(loaders, name) ? loaders[name] : undefined;
  if (load === undefined) return undefined;
  return defineProfiles({ [name]: await load() });
}
