import * as z from 'zod';
import type { Anchor } from './anchors.ts';
import type { ExecutionOrigin } from './tasks.ts';

/**
 * The things a slash command may name, as a workflow declares them in its `slash_command`
 * trigger (`names`): which of the kernel's anchors a text may name it by, the refusal of a text
 * naming none, and how a command meets a conversation the thing already has
 * (lambdas/kernel/route-command.ts). The kernel knows how a text names each of its anchors; what a
 * workflow's things are, it reads from the trigger.
 */

/** A GitHub repository, `owner/name`. */
export const GithubRepository = z.string().regex(/^[^/\s]+\/[^/\s]+$/, 'expected owner/name');

/** One way a command's text may name a thing: by one of the kernel's anchors. */
export const EntityName = z.discriminatedUnion('anchor', [
  /** An issue of `repository`: its number (`42`, `#42`) or its URL (any host). */
  z.object({ anchor: z.literal('github_issue'), repository: GithubRepository }),
  /** One of these CloudWatch alarms: its name, or one word starting with one of `prefixes`. */
  z.object({
    anchor: z.literal('alarm_name'),
    names: z.array(z.string().min(1)),
    prefixes: z.array(z.string().min(1)),
  }),
  /** A PagerDuty incident: its id (`PF9KMXH`) or its `https://<account>.pagerduty.com/incidents/<id>` URL. */
  z.object({ anchor: z.literal('alert'), source: z.literal('pagerduty') }),
]);
export type EntityName = z.infer<typeof EntityName>;

/** A kind of thing a command names, as its workflow declares it. */
export const CommandEntity = z.object({
  /** The ways a text may name one, tried in order: the first that reads the text names it. */
  names: z.array(EntityName).min(1),
  /**
   * Why a command whose text names none is refused (`names no issue of acme/shop`); without it,
   * such a text runs as a conversation of its own, naming nothing (a description of an incident).
   */
  refusal: z.string().min(1).optional(),
  /** A line of the command's help saying how to name one. */
  help: z.string().min(1).optional(),
  /** The conversation starts on the thing's own anchor (true), or in Slack, linked to it. */
  anchored: z.boolean(),
  /** An ended conversation of the thing still stands (the thing has had its run): no new one starts. */
  once: z.boolean(),
});
export type CommandEntity = z.infer<typeof CommandEntity>;

/** A thing a command's text names: its anchor, how people read it, and the origin it starts with. */
export interface NamedEntity {
  readonly anchor: Anchor;
  readonly label: string;
  readonly origin?: ExecutionOrigin;
}

/** The thing a command's text names, or undefined when it names none. */
export function entityNamedBy(entity: CommandEntity, text: string): NamedEntity | undefined {
  for (const name of entity.names) {
    const named = namedBy(name, text.trim());
    if (named !== undefined) return named;
  }
  return undefined;
}

/** What `text` (trimmed) names by one way of naming. */
function namedBy(name: EntityName, text: string): NamedEntity | undefined {
  switch (name.anchor) {
    case 'github_issue': {
      const number = issueNumberIn(text, name.repository);
      if (number === undefined) return undefined;
      return {
        anchor: { kind: 'github_issue', repository: name.repository, number },
        label: `${name.repository}#${number}`,
        origin: {
          kind: 'github',
          repository: name.repository,
          number,
          url: text.startsWith('http') ? text : '',
        },
      };
    }
    case 'alarm_name': {
      const named =
        name.names.includes(text) || name.prefixes.some((p) => text.startsWith(p) && !/\s/.test(text));
      return named ? { anchor: { kind: 'alarm_name', name: text }, label: text } : undefined;
    }
    case 'alert': {
      const incidentKey = pagerDutyIncidentIn(text);
      if (incidentKey === undefined) return undefined;
      return { anchor: { kind: 'alert', source: 'pagerduty', incidentKey }, label: incidentKey };
    }
  }
}

/**
 * The issue a command's text names in `repository`: `42`, `#42`, or the issue's URL (any host:
 * github.com or a GitHub Enterprise Server); undefined when it names none of that repository.
 */
function issueNumberIn(text: string, repository: string): number | undefined {
  const trimmed = text.trim();
  const bare = /^#?(\d{1,9})$/.exec(trimmed);
  if (bare) return Number(bare[1]);
  const url = /^https?:\/\/\S+?\/([^/\s]+\/[^/\s]+)\/issues\/(\d{1,9})\/?$/.exec(trimmed);
  if (url && (url[1] ?? '').toLowerCase() === repository.toLowerCase()) return Number(url[2]);
  return undefined;
}

/** The PagerDuty incident id a text names (`PF9KMXH`, or its URL); undefined for a free description. */
function pagerDutyIncidentIn(text: string): string | undefined {
  const url = /^https:\/\/[\w-]+\.pagerduty\.com\/incidents\/([A-Z0-9]{5,20})\/?$/.exec(text);
  if (url?.[1]) return url[1];
  // PagerDuty ids are upper-case letters and digits; a one-word description is neither all
  // upper case nor carries a digit, so it is not mistaken for one.
  if (/^[A-Z0-9]{5,20}$/.test(text) && /\d/.test(text)) return text;
  return undefined;
}
