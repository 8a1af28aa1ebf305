import * as z from 'zod';
import { CommandEntity, entityNamedBy } from './command-entities.ts';
import type { Trigger } from './workflows.ts';

/**
 * Help for the slash commands: what each takes, and the answer to a command that asks for help
 * (`/prd help`) or cannot run as typed (`/fix` with no issue, `/prd --list`). The ingress answers
 * these at once, ephemerally, from the list the stack gives it; the Router answers them too when
 * one reaches it, so that no such command starts a conversation.
 */

/** What the help of one command is made of: the `slash_command` trigger's own fields. */
export const SlashCommandUsage = z.object({
  command: z.string().startsWith('/'),
  description: z.string().min(1).optional(),
  usageHint: z.string().min(1).optional(),
  /** The kind of thing the command names (its trigger's `names`). */
  names: CommandEntity.optional(),
});
export type SlashCommandUsage = z.infer<typeof SlashCommandUsage>;

export const SlashCommandUsages = z.array(SlashCommandUsage);

/** The usage of a `slash_command` trigger, as the stack hands it to the ingress. */
export function usageOfTrigger(trigger: Extract<Trigger, { type: 'slash_command' }>): SlashCommandUsage {
  return {
    command: trigger.command,
    ...(trigger.description === undefined ? {} : { description: trigger.description }),
    ...(trigger.usageHint === undefined ? {} : { usageHint: trigger.usageHint }),
    ...(trigger.names === undefined ? {} : { names: trigger.names }),
  };
}

/** Words that ask for help instead of naming something. */
const HELP_WORDS = new Set(['help', '-h', '--help', '?', 'usage']);

/** What a command's text asks for: to run, or an answer the person gets instead (and why). */
export type CommandReading =
  | { type: 'run' }
  | { type: 'answer'; reason: 'help' | 'missing_argument' | 'unknown_subcommand' | 'unnamed'; text: string };

/** A command's help in Slack mrkdwn: what it does, its usage line, and its `help` subcommand. */
function commandHelp(usage: SlashCommandUsage): string {
  const line = `\`${usage.command}${usage.usageHint ? ` ${escapeControl(usage.usageHint)}` : ''}\``;
  return [
    `*${usage.command}*${usage.description ? `: ${escapeControl(usage.description)}` : ''}`,
    `Usage: ${line}`,
    ...(usage.names?.help ? [usage.names.help] : []),
    `\`${usage.command} help\` shows this help.`,
  ].join('\n');
}

/**
 * Reads a command's text before anything starts: `help` (and `-h`, `--help`, `?`), an empty
 * text, a leading option (`--list`: these commands have none), and a text that names none of the
 * things a command must name (an issue command's issue), each get the command's help instead of
 * a run.
 */
export function readCommandText(usage: SlashCommandUsage, text: string): CommandReading {
  const trimmed = text.trim();
  const help = commandHelp(usage);
  if (HELP_WORDS.has(trimmed.toLowerCase())) return { type: 'answer', reason: 'help', text: help };
  if (trimmed === '') {
    return {
      type: 'answer',
      reason: 'missing_argument',
      text: `${usage.command} needs ${usage.usageHint ? escapeControl(usage.usageHint) : 'some text'}.\n${help}`,
    };
  }
  const option = /^--?[A-Za-z][\w-]*/.exec(trimmed)?.[0];
  if (option !== undefined) {
    return {
      type: 'answer',
      reason: 'unknown_subcommand',
      text: `${usage.command} has no option \`${option}\`.\n${help}`,
    };
  }
  const names = usage.names;
  if (names?.refusal !== undefined && entityNamedBy(names, trimmed) === undefined) {
    return {
      type: 'answer',
      reason: 'unnamed',
      text: `\`${escapeControl(excerpt(trimmed))}\` ${names.refusal}.\n${help}`,
    };
  }
  return { type: 'run' };
}

/**
 * Slack reads `<...>` as a link or a mention and `&` as the start of an entity, inside inline
 * code too: a usage hint such as `<product idea>` is sent as `&lt;product idea&gt;` so that it
 * shows as written.
 */
function escapeControl(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** A person's text quoted back in inline code: one line, short, without backticks. */
function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').replaceAll('`', "'");
  return flat.length <= 80 ? flat : `${flat.slice(0, 79)}…`;
}
