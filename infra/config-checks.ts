import type { AnyWorkflowModule, KernelConfig } from '../statemachines/workflow-module.ts';
import { nearest, type UnknownKey } from './config-keys.ts';

/**
 * What a configuration needs to work in AWS beyond its schema: no id of the sandbox's fake
 * Slack workspace, and every enabled workflow with the channels and people it needs. The
 * sandbox's own configuration (`sandbox: true`) may use its fake ids; it is never deployed.
 */

/** One problem of a configuration: where it is (`channels.incidents`) and what to do. */
export interface ConfigProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * The sandbox's fake workspace names its channels, groups and users `C_...`, `S_...`, `U_...`
 * (local/slack): real Slack ids are upper-case letters and digits only, never an underscore.
 */
const PLACEHOLDER_ID = /^[CGDSUWB]_[A-Z0-9_]*$/;

export function isPlaceholderId(value: string): boolean {
  return PLACEHOLDER_ID.test(value);
}

/** Whether `path` names a value in the configuration as written. */
function isWritten(written: unknown, path: readonly string[]): boolean {
  let at: unknown = written;
  for (const key of path) {
    if (typeof at !== 'object' || at === null || !(key in at)) return false;
    at = (at as Record<string, unknown>)[key];
  }
  return at !== undefined;
}

/** Where to find each kind of id, for the messages. */
const FIND = {
  channel: "a channel id (C0123456789: the channel's details in Slack, at the bottom)",
  group: 'a user group id (S0123456789: docs/deploy.md, "User group ids")',
  user: "a user id (U0123456789: a person's profile in Slack, More, Copy member ID)",
} as const;

type Settings = Readonly<Record<string, unknown>>;

/** Whether a module deploys anything under the configuration (its `enabled`, default on). */
export function isModuleEnabled(module: AnyWorkflowModule, config: Settings): boolean {
  if (module.enabled === undefined) return true;
  const settings = module.settings === undefined ? {} : config[module.settings.key];
  return module.enabled(settings as never);
}

/** How a module is switched off, for the messages; undefined when it cannot be. */
function switchOff(module: AnyWorkflowModule): string {
  const key = module.settings?.key;
  if (module.enabled === undefined || key === undefined) return '';
  return `, or ${module.switchOff ?? `set ${key}.enabled: false`}`;
}

/**
 * The problems that stop this configuration from working in AWS (empty for the sandbox's):
 * fake ids anywhere, and each enabled module's channels, its people, and the roles that
 * decide its approvals, each with members; then each enabled module's own checks.
 */
export function deployProblems(
  config: KernelConfig & Settings & { readonly sandbox?: boolean },
  modules: readonly AnyWorkflowModule[],
  /** The configuration as written (before defaults): a placeholder nobody wrote is a default's. */
  written?: unknown,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  /** "C_X is ..." for a value the configuration names; "not set: its default, C_X, is ..." otherwise. */
  const placeholder = (path: readonly string[], id: string) =>
    written === undefined || isWritten(written, path)
      ? `${id} is a placeholder of the sandbox's fake workspace`
      : `not set, so it is the default, ${id}, a placeholder of the sandbox's fake workspace`;
  const enabled = modules.filter((module) => isModuleEnabled(module, config));
  const owners = new Map<string, AnyWorkflowModule>();
  for (const module of enabled)
    for (const name of Object.keys(module.channels ?? {})) owners.set(name, module);

  if (config.sandbox !== true) {
    // Channels: those of enabled modules must be real; a disabled module's default is unused.
    for (const [name, id] of Object.entries(config.channels)) {
      if (id === undefined || !isPlaceholderId(id)) continue;
      const owner = owners.get(name);
      const declaredBy = modules.find((module) => name in (module.channels ?? {}));
      if (owner === undefined && declaredBy !== undefined) continue;
      problems.push({
        path: `channels.${name}`,
        message: `${placeholder(['channels', name], id)}${owner ? `; ${owner.name} posts there` : ''}: set ${FIND.channel}${owner ? switchOff(owner) : ''}`,
      });
    }
    if (isPlaceholderId(config.botUserId ?? ''))
      problems.push({
        path: 'botUserId',
        message: `${config.botUserId} is a placeholder of the sandbox's fake workspace: leave botUserId out (the bot's id is read from Slack's auth.test at run time) or set the bot's user id`,
      });
  }

  // People: every role an enabled module configures, or whose holders decide its approvals.
  const needed = new Map<string, string>();
  for (const module of enabled) {
    for (const role of Object.keys(module.people ?? {})) needed.set(role, module.name);
    for (const kind of Object.keys(module.decisions ?? {})) {
      for (const role of config.approvals[kind] ?? [])
        if (role in config.people) needed.set(role, module.name);
    }
  }
  for (const [role, members] of Object.entries(config.people)) {
    const fake = [
      ...members.groups.map((id, i) => ({ id, at: `groups.${i}`, kind: 'group' as const })),
      ...members.users.map((id, i) => ({ id, at: `users.${i}`, kind: 'user' as const })),
    ].filter(({ id }) => isPlaceholderId(id));
    const neededBy = needed.get(role);
    if (
      config.sandbox !== true &&
      (neededBy !== undefined || fake.length < members.groups.length + members.users.length)
    ) {
      if (written !== undefined && !isWritten(written, ['people', role]) && fake.length > 0)
        // A role nobody named holds the sandbox's default members: one line for the role.
        problems.push({
          path: `people.${role}`,
          message: `not set, so it is the default, ${fake.map(({ id }) => id).join(', ')}, a placeholder of the sandbox's fake workspace${neededBy ? `; ${neededBy} needs this role` : ''}: give it groups (${FIND.group}) or users`,
        });
      else
        for (const { id, at, kind } of fake)
          problems.push({
            path: `people.${role}.${at}`,
            message: `${placeholder(['people', role], id)}: set ${FIND[kind]}`,
          });
    }
    if (neededBy !== undefined && members.groups.length + members.users.length === 0)
      problems.push({
        path: `people.${role}`,
        message: `${neededBy} needs someone in this role: give it groups (${FIND.group}) or users`,
      });
  }
  for (const module of enabled) {
    const settings = module.settings === undefined ? {} : config[module.settings.key];
    for (const problem of module.check?.(settings as never, config) ?? []) problems.push(problem);
  }
  if (config.sandbox !== true) problems.push(...placeholdersElsewhere(config));
  return problems;
}

/** Fake ids outside channels, people and botUserId (e.g. a list of channels a workflow watches). */
function placeholdersElsewhere(config: Settings): ConfigProblem[] {
  const found: ConfigProblem[] = [];
  const walk = (value: unknown, path: string[]) => {
    if (typeof value === 'string') {
      if (isPlaceholderId(value))
        found.push({
          path: path.join('.'),
          message: `${value} is a placeholder of the sandbox's fake workspace: set the id from your workspace`,
        });
      return;
    }
    if (value === null || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) walk(inner, [...path, key]);
  };
  for (const [key, value] of Object.entries(config)) {
    if (key === 'channels' || key === 'people' || key === 'botUserId') continue;
    walk(value, [key]);
  }
  return found;
}

/**
 * Channel names no module declares. The sandbox creates a channel in its fake workspace for
 * each further name; anywhere else such a name is a typo nobody would notice.
 */
export function unknownChannels(raw: unknown, modules: readonly AnyWorkflowModule[]): UnknownKey[] {
  if (raw === null || typeof raw !== 'object') return [];
  const { sandbox, channels } = raw as { sandbox?: unknown; channels?: unknown };
  if (sandbox === true || channels === null || typeof channels !== 'object') return [];
  const declared = modules.flatMap((module) => Object.keys(module.channels ?? {}));
  return Object.keys(channels)
    .filter((name) => !declared.includes(name))
    .map((name) => {
      const suggestion = nearest(name, declared);
      return { path: ['channels', name], ...(suggestion === undefined ? {} : { suggestion }) };
    });
}
