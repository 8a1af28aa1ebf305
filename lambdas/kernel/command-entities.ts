import type { Anchor } from './anchors.ts';
import type { ExecutionOrigin } from './tasks.ts';
import type { Trigger, WorkflowRegistration } from './workflows.ts';

/**
 * The grammar of a command that names a thing: what its `slash_command` trigger says the text
 * may name, and how a text is read as one. A GitHub issue is named by its number or URL; an
 * incident by a PagerDuty incident id (or URL) or by one of the workflow's alarms.
 */
export type CommandEntity =
  | { readonly kind: 'github_issue'; readonly repository: string }
  | {
      readonly kind: 'incident';
      /** The alarm names and name prefixes of the workflow's CloudWatch `alert` triggers. */
      readonly alarms: { readonly names: readonly string[]; readonly prefixes: readonly string[] };
    };

/** A thing a command's text names: its anchor, how people read it, and the origin it starts with. */
export interface NamedEntity {
  readonly anchor: Anchor;
  readonly label: string;
  readonly origin?: ExecutionOrigin;
}

/** What a `slash_command` trigger's text names, if anything (the workflow's alarms for incidents). */
export function commandEntity(
  trigger: Extract<Trigger, { type: 'slash_command' }>,
  registration: Pick<WorkflowRegistration, 'triggers'>,
): CommandEntity | undefined {
  if (trigger.issues !== undefined) return { kind: 'github_issue', repository: trigger.issues };
  if (trigger.incidents !== true) return undefined;
  const names: string[] = [];
  const prefixes: string[] = [];
  for (const t of registration.triggers) {
    if (t.type !== 'alert' || t.source !== 'cloudwatch') continue;
    names.push(...(t.names ?? []));
    prefixes.push(...(t.namePrefixes ?? []));
  }
  return { kind: 'incident', alarms: { names, prefixes } };
}

/** The thing a command's text names, or undefined when it names none. */
export function entityNamedBy(entity: CommandEntity, text: string): NamedEntity | undefined {
  switch (entity.kind) {
    case 'github_issue': {
      const number = issueNumberIn(text, entity.repository);
      if (number === undefined) return undefined;
      const trimmed = text.trim();
      return {
        anchor: { kind: 'github_issue', repository: entity.repository, number },
        label: `${entity.repository}#${number}`,
        origin: {
          kind: 'github',
          repository: entity.repository,
          number,
          url: trimmed.startsWith('http') ? trimmed : '',
        },
      };
    }
    case 'incident': {
      const anchor = incidentNamedBy(text, entity.alarms);
      if (anchor === undefined) return undefined;
      return { anchor, label: anchor.kind === 'alarm_name' ? anchor.name : anchor.incidentKey };
    }
  }
}

/** Why a command whose text names no such thing is refused; undefined: it runs, naming nothing. */
export function unnamedRefusal(entity: CommandEntity): string | undefined {
  // An issue command is the issue's run; an incident command may describe one in free words.
  return entity.kind === 'github_issue' ? `names no issue of ${entity.repository}` : undefined;
}

/**
 * The issue a command's text names in `repository`: `42`, `#42`, or the issue's URL (any host:
 * github.com or a GitHub Enterprise Server); undefined when it names none of that repository.
 */
export function issueNumberIn(text: string, repository: string): number | undefined {
  const trimmed = text.trim();
  const bare = /^#?(\d{1,9})$/.exec(trimmed);
  if (bare) return Number(bare[1]);
  const url = /^https?:\/\/\S+?\/([^/\s]+\/[^/\s]+)\/issues\/(\d{1,9})\/?$/.exec(trimmed);
  if (url && (url[1] ?? '').toLowerCase() === repository.toLowerCase()) return Number(url[2]);
  return undefined;
}

/**
 * The incident a command's text names: a PagerDuty incident id (`PF9KMXH`, or its
 * `https://<account>.pagerduty.com/incidents/<id>` URL), or one of `alarms` (names, or names
 * with one of `alarms.prefixes`); undefined for a free description such as `checkout latency`.
 */
export function incidentNamedBy(
  text: string,
  alarms: { readonly names: readonly string[]; readonly prefixes: readonly string[] },
): Extract<Anchor, { kind: 'alarm_name' | 'alert' }> | undefined {
  const trimmed = text.trim();
  if (
    alarms.names.includes(trimmed) ||
    alarms.prefixes.some((p) => trimmed.startsWith(p) && !/\s/.test(trimmed))
  )
    return { kind: 'alarm_name', name: trimmed };
  const url = /^https:\/\/[\w-]+\.pagerduty\.com\/incidents\/([A-Z0-9]{5,20})\/?$/.exec(trimmed);
  if (url?.[1]) return { kind: 'alert', source: 'pagerduty', incidentKey: url[1] };
  // PagerDuty ids are upper-case letters and digits; a one-word description is neither all
  // upper case nor carries a digit, so it is not mistaken for one.
  if (/^[A-Z0-9]{5,20}$/.test(trimmed) && /\d/.test(trimmed))
    return { kind: 'alert', source: 'pagerduty', incidentKey: trimmed };
  return undefined;
}
