import * as z from 'zod';
import { InvalidModelPriceError } from '../lambdas/agents/errors.ts';
import { priceOf } from '../lambdas/agents/pricing.ts';
import { RoleMembers } from '../lambdas/kernel/people.ts';
import { WORKFLOW_MODULES } from '../statemachines/index.ts';
import type { AnyWorkflowModule, KernelConfig } from '../statemachines/workflow-module.ts';
import { deployProblems, unknownChannels } from './config-checks.ts';
import { KernelConfigFields, SlackChannelId } from './config-kernel.ts';
import { unknownKeys } from './config-keys.ts';
import { KERNEL_DECISIONS, mcpProblems } from './config-mcp.ts';
import { applyMovedKeys } from './config-moves.ts';
import { guardrailProblems } from './config-redaction.ts';
import { jsonErrorPlace } from './json-error-place.ts';

/**
 * Stack configuration: read from the CDK context key `slackAgents` (an object, or its JSON
 * text when given with `cdk synth -c slackAgents='{...}'`) or passed as stack props, and
 * validated here so a typo fails the synth with the field's name instead of deploying a
 * stack that silently ignores it.
 */

/** The CDK context key holding the configuration object. */
export const CONFIG_CONTEXT_KEY = 'slackAgents';

/**
 * The stack configuration's schema for these modules: the kernel's fields, the channels the
 * modules name (with their placeholder defaults; further names are accepted), and each
 * module's section under its key, every field defaulted.
 */
export function configSchema(modules: readonly AnyWorkflowModule[] = WORKFLOW_MODULES) {
  const channelDefaults: Record<string, z.ZodDefault<typeof SlackChannelId>> = {};
  const sections: Record<string, z.ZodType> = {};
  const roleDefaults: Record<string, z.ZodType> = {};
  const decisionDefaults: Record<string, z.ZodType> = { ...KERNEL_DECISIONS };
  for (const module of modules) {
    for (const [role, members] of Object.entries(module.people ?? {})) {
      if (role in roleDefaults) throw new Error(`role "${role}" is configured by two modules`);
      roleDefaults[role] = RoleMembers.prefault({
        groups: [...(members.groups ?? [])],
        users: [...(members.users ?? [])],
      });
    }
    for (const [kind, roles] of Object.entries(module.decisions ?? {})) {
      if (kind in decisionDefaults) throw new Error(`decision "${kind}" is declared by two modules`);
      decisionDefaults[kind] = z
        .array(z.string())
        .min(1)
        .default([...roles]);
    }
    for (const [name, id] of Object.entries(module.channels ?? {})) {
      if (name in channelDefaults) throw new Error(`channel "${name}" is declared by two modules`);
      channelDefaults[name] = SlackChannelId.default(id);
    }
    if (module.settings === undefined) continue;
    const { key, schema } = module.settings;
    if (key in KernelConfigFields || key in sections || ['channels', 'people', 'approvals'].includes(key))
      throw new Error(`configuration section "${key}" of ${module.name} is taken`);
    sections[key] = (schema as z.ZodType<unknown, object>).prefault({});
  }
  return z.strictObject({
    /**
     * Slack channels by the name the workflows use for them. Outside the sandbox only the names
     * the modules declare (config-checks.ts refuses others, naming the nearest); the sandbox
     * creates a channel in its fake workspace for each further name.
     */
    channels: z.object(channelDefaults).catchall(SlackChannelId).prefault({}),
    /**
     * Who holds each role (Slack user groups and user ids), e.g. `developer`, `on_call`: a
     * sender gets such a role only as a member, wherever they write.
     */
    people: z.strictObject(roleDefaults).prefault({}),
    /** Who may decide what: decision kind -> roles whose holders may press its buttons. */
    approvals: z.strictObject(decisionDefaults).prefault({}),
    ...KernelConfigFields,
    ...sections,
  });
}

/**
 * The validated configuration, every default applied: the kernel's fields and each module's
 * section by its key (the stack hands a module its own, typed by the module's schema).
 */
export type SlackAgentsConfig = KernelConfig & { readonly [section: string]: unknown };
/** What callers may pass: every field optional (sections as their modules' schemas take them). */
export type SlackAgentsConfigInput = {
  readonly [K in keyof KernelConfig]?: unknown;
} & { readonly [section: string]: unknown };

export class InvalidConfigError extends Error {
  override readonly name = 'InvalidConfigError';
  constructor(
    /** One line per problem: `slackAgents.<path>: <what is wrong and what to do>`. */
    readonly issues: readonly string[],
    options: { cause?: unknown } = {},
  ) {
    super(
      `invalid ${CONFIG_CONTEXT_KEY} configuration:\n${issues.map((issue) => `  ${issue}`).join('\n')}`,
      options,
    );
  }
}

/**
 * Validates a raw configuration (context value or props), applies the defaults, and checks
 * what it needs to work in AWS (infra/config-checks.ts) unless it is the sandbox's.
 * JSON text is accepted because `cdk -c key=value` passes context values as strings.
 * A key a module's section took over (`settings.movedFrom`) is still read from its old place,
 * with a deprecation warning through `onWarning`.
 * @throws InvalidConfigError with one line per problem, e.g.
 *   `slackAgents.channels.bugReport: unknown key; did you mean channels.bugReports?`
 */
export function parseConfig(
  raw: unknown = {},
  modules: readonly AnyWorkflowModule[] = WORKFLOW_MODULES,
  options: {
    /** @default - printed on stderr */
    onWarning?: (message: string) => void;
  } = {},
): SlackAgentsConfig {
  const given = typeof raw === 'string' ? parseJsonText(raw) : (raw ?? {});
  const schema = configSchema(modules);
  const line = (path: readonly (string | number)[], message: string) =>
    `${[CONFIG_CONTEXT_KEY, ...path.map(String)].join('.')}: ${message}`;
  const { value, moved, conflicts } = applyMovedKeys(given, modules);
  if (conflicts.length > 0)
    throw new InvalidConfigError(
      conflicts.map(({ from, to }) =>
        line(
          from,
          `moved to ${CONFIG_CONTEXT_KEY}.${to.join('.')}, which is set too: keep only the new place`,
        ),
      ),
    );
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  for (const { from, to } of moved)
    warn(
      line(
        from,
        `deprecated: this key moved to ${CONFIG_CONTEXT_KEY}.${to.join('.')}; it was read from its old place, move it there`,
      ),
    );
  // Unknown keys first, each with the nearest known name; zod's own report of them is dropped.
  const unknown = [...unknownKeys(schema, value), ...unknownChannels(value, modules)].map(
    ({ path, suggestion }) =>
      line(
        path,
        suggestion === undefined
          ? 'unknown key'
          : `unknown key; did you mean ${[...path.slice(0, -1), suggestion].filter((p) => typeof p === 'string').join('.')}?`,
      ),
  );
  const result = schema.safeParse(value);
  const invalid = result.success
    ? []
    : result.error.issues
        .filter((issue) => issue.code !== 'unrecognized_keys')
        .map((issue) => line(issue.path as (string | number)[], issue.message));
  if (!result.success || unknown.length > 0)
    throw new InvalidConfigError([...unknown, ...invalid], { cause: result.error });
  const config = result.data as SlackAgentsConfig;
  // An unpriced model is a synth-time error: a cost nobody can compute is a limit nobody holds.
  if (priceOf(config.model.id, config.modelPrices) === undefined) {
    const error = new InvalidModelPriceError(config.model.id);
    throw new InvalidConfigError([line(['modelPrices'], error.message)], { cause: error });
  }
  const workflows = modules.flatMap((module) => (module.workflows ?? []).map((workflow) => workflow.name));
  const problems = [
    ...guardrailProblems(config),
    ...mcpProblems(config, workflows),
    ...deployProblems(config, modules, value),
  ];
  if (problems.length > 0)
    throw new InvalidConfigError(problems.map((problem) => line(problem.path.split('.'), problem.message)));
  // The sandbox's fake workspace has its bot as U_BOT; elsewhere the functions ask Slack.
  if (config.sandbox && config.botUserId === undefined) return { ...config, botUserId: SANDBOX_BOT_USER_ID };
  return config;
}

/** The bot's user id in the sandbox's fake workspace. */
export const SANDBOX_BOT_USER_ID = 'U_BOT';

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    // The CDK CLI keeps only the first line of a `-c key=value`: a pretty-printed file arrives as "{".
    const hint =
      text.trim() === '{'
        ? ' (only "{" arrived: `cdk -c` keeps the first line of a value; pass the JSON on one line, e.g. "$(node -p \'JSON.stringify(require("./my-config.json"))\')", or put it in cdk.json\'s context)'
        : '';
    const where = hint === '' ? jsonErrorPlace(text, cause) : '';
    throw new InvalidConfigError([`${CONFIG_CONTEXT_KEY}: expected a JSON object${where}${hint}`], { cause });
  }
}
