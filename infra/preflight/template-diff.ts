import { RECORD_KINDS, type RecordKindName, readableVersions } from '../../lambdas/kernel/record-versions.ts';
import { HANDOVER_VERSION_NOT_ACCEPTED } from '../../statemachines/continue-as-new.ts';
import { HANDOVER_VERSION_FIELD } from '../../statemachines/workflow-versions.ts';

/** Template metadata naming each record kind's schema version (set by the stack). */
export const RECORD_VERSIONS_METADATA = 'slack-agents:record-versions';

/** Each record kind's schema version this release writes, as the stack's template states it. */
export function recordVersionsMetadata(): Record<RecordKindName, number> {
  return Object.fromEntries(
    Object.entries(RECORD_KINDS).map(([name, kind]) => [name, kind.current]),
  ) as Record<RecordKindName, number>;
}

interface Resource {
  Type?: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}
export interface TemplateJson {
  Resources?: Record<string, Resource>;
  Metadata?: Record<string, unknown>;
}

/** What a deploy of `current` over `previous` changes for conversations in flight. */
export interface InFlightReport {
  /** One line per change, each saying what happens to executions running then. */
  readonly lines: readonly string[];
  /** Changes that would break a conversation in flight: each names what to fix. */
  readonly problems: readonly string[];
}

export function compareForInFlight(previous: TemplateJson, current: TemplateJson): InFlightReport {
  const lines: string[] = [];
  const problems: string[] = [];
  const before = readTemplate(previous);
  const after = readTemplate(current);

  for (const [id, asl] of after.machines) {
    const old = before.machines.get(id);
    if (old === undefined) lines.push(`state machine ${id}: new`);
    else if (old.normalized !== asl.normalized)
      lines.push(
        `state machine ${id}: definition changes (a new version; executions running keep the one they started on)`,
      );
    else if (old.raw !== asl.raw)
      lines.push(`state machine ${id}: only the Lambda versions its tasks invoke change`);
  }
  for (const id of before.machines.keys())
    if (!after.machines.has(id))
      lines.push(`state machine ${id}: removed (its executions running keep its version)`);

  for (const [id, fn] of after.functions) {
    const old = before.functions.get(id);
    if (old === undefined) continue;
    const code = JSON.stringify(old.code) !== JSON.stringify(fn.code);
    const configuration = JSON.stringify(old.configuration) !== JSON.stringify(fn.configuration);
    if (!code && !configuration) continue;
    const what = [code ? 'code' : '', configuration ? 'configuration' : ''].filter(Boolean).join(' and ');
    const pinnedBy = [...after.machines].filter(([, m]) => m.pinned.has(id)).map(([m]) => m);
    const unpinnedBy = [...after.machines].filter(([, m]) => m.unpinned.has(id)).map(([m]) => m);
    const name = fn.name ?? id;
    if (unpinnedBy.length > 0) {
      problems.push(
        `function ${name}: ${what} change, and ${unpinnedBy.join(', ')} invoke(s) it without a version: executions in flight would run the new code (invoke fn.currentVersion)`,
      );
    } else if (pinnedBy.length > 0) {
      lines.push(
        `function ${name}: ${what} change; invoked by ${pinnedBy.join(', ')} through a published version (executions in flight keep the old one)`,
      );
    } else {
      lines.push(
        `function ${name}: ${what} change; no state machine invokes it: it runs the new code at once and reads every record and payload still alive`,
      );
    }
  }

  handover(before, after, lines, problems);
  records(previous, current, lines, problems);
  return { lines, problems };
}

function handover(before: ReadTemplate, after: ReadTemplate, lines: string[], problems: string[]): void {
  const sent = new Set([...before.machines.values()].flatMap((m) => m.handoverSent));
  const versions = sent.size > 0 ? [...sent] : [0];
  for (const [id, machine] of after.machines) {
    if (machine.handoverAccepted === undefined) continue;
    const refused = versions.filter((v) => !machine.handoverAccepted?.includes(v));
    const text = `hand-over into ${id}: the previous release hands over with ${HANDOVER_VERSION_FIELD} ${versions.join(', ')}; this one accepts ${machine.handoverAccepted.join(', ')}`;
    if (refused.length > 0)
      problems.push(`${text}: ${refused.join(', ')} would fail with HandoverVersionNotAccepted (accept it)`);
    else lines.push(text);
  }
}

function records(previous: TemplateJson, current: TemplateJson, lines: string[], problems: string[]): void {
  const before = versionsOf(previous);
  const after = versionsOf(current);
  const changed: string[] = [];
  for (const name of Object.keys(RECORD_KINDS) as RecordKindName[]) {
    const was = before?.[name] ?? 0;
    const now = after?.[name] ?? 0;
    if (was === now) continue;
    const readable = readableVersions(name);
    const text = `record ${name}: schema version ${was} -> ${now} (this release reads ${readable.join(', ')})`;
    if (!readable.includes(was))
      problems.push(`${text}: the records written before would not be read (add the upgrade)`);
    else changed.push(text);
  }
  if (before === undefined)
    lines.push(
      'records: the previous release wrote no schema version (read as version 0, the same shape as 1)',
    );
  lines.push(...changed);
  if (before !== undefined && changed.length === 0) lines.push('records: no schema version changes');
}

function versionsOf(template: TemplateJson): Record<string, number> | undefined {
  const value = template.Metadata?.[RECORD_VERSIONS_METADATA];
  return value !== null && typeof value === 'object' ? (value as Record<string, number>) : undefined;
}

interface MachineRead {
  raw: string;
  /** The definition with each Lambda version named by its function: unchanged when only code changed. */
  normalized: string;
  pinned: Set<string>;
  unpinned: Set<string>;
  handoverSent: number[];
  /** The versions its hand-over check accepts (absent: it has no such check). */
  handoverAccepted?: number[];
}
interface ReadTemplate {
  machines: Map<string, MachineRead>;
  functions: Map<string, { name?: string; code: unknown; configuration: unknown }>;
}

function readTemplate(template: TemplateJson): ReadTemplate {
  const resources = Object.entries(template.Resources ?? {});
  const functions = new Map(
    resources
      .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
      .map(([id, r]) => {
        const { Code: code, ...configuration } = r.Properties ?? {};
        const name = r.Metadata?.['slack-agents:function'];
        return [id, { ...(typeof name === 'string' ? { name } : {}), code, configuration }] as const;
      }),
  );
  const versionOf = new Map<string, string>();
  for (const [id, r] of resources) {
    const target = (r.Properties?.FunctionName as { Ref?: unknown } | undefined)?.Ref;
    if (r.Type === 'AWS::Lambda::Version' && typeof target === 'string') versionOf.set(id, target);
  }
  const machines = new Map<string, MachineRead>();
  for (const [id, r] of resources) {
    if (r.Type !== 'AWS::StepFunctions::StateMachine') continue;
    const raw = renderDefinition(r.Properties?.DefinitionString ?? r.Properties?.Definition);
    const pinned = new Set<string>();
    const unpinned = new Set<string>();
    const normalized = raw.replace(
      /\$\{(Ref|GetAtt):([A-Za-z0-9]+)(?:\.[A-Za-z]+)?\}/g,
      (whole, _kind, target) => {
        const fn = versionOf.get(target);
        if (fn !== undefined) {
          pinned.add(fn);
          return `\${Version:${fn}}`;
        }
        if (functions.has(target)) unpinned.add(target);
        return whole;
      },
    );
    machines.set(id, { raw, normalized, pinned, unpinned, ...handoverOf(raw) });
  }
  return { machines, functions };
}

/** A definition as text: `Fn::Join` parts joined, each reference written `${Ref:Id}` / `${GetAtt:Id.Attr}`. */
function renderDefinition(definition: unknown): string {
  if (typeof definition === 'string') return definition;
  const join = (definition as { 'Fn::Join'?: [string, unknown[]] } | undefined)?.['Fn::Join'];
  if (join === undefined) return JSON.stringify(definition ?? null);
  return join[1]
    .map((part) => {
      if (typeof part === 'string') return part;
      const ref = (part as { Ref?: unknown }).Ref;
      if (typeof ref === 'string') return `\${Ref:${ref}}`;
      const getAtt = (part as { 'Fn::GetAtt'?: unknown[] })['Fn::GetAtt'];
      if (Array.isArray(getAtt)) return `\${GetAtt:${getAtt.join('.')}}`;
      return '<other reference>';
    })
    .join(join[0]);
}

/** The hand-over versions a definition sends (continue-as-new's input) and accepts (its check's Choice). */
function handoverOf(raw: string): Pick<MachineRead, 'handoverSent' | 'handoverAccepted'> {
  const sent = [...raw.matchAll(new RegExp(`"${HANDOVER_VERSION_FIELD}":(\\d+)`, 'g'))].map((m) =>
    Number(m[1]),
  );
  let definition: unknown;
  try {
    definition = JSON.parse(raw);
  } catch {
    // A definition that is no JSON once its references are written out: nothing read from it.
    return { handoverSent: [...new Set(sent)] };
  }
  const states = statesOf(definition);
  const refusals = new Set(
    [...states].filter(([, state]) => state.Error === HANDOVER_VERSION_NOT_ACCEPTED).map(([name]) => name),
  );
  const variable = `$.${HANDOVER_VERSION_FIELD}`;
  let accepted: number[] | undefined;
  for (const state of states.values()) {
    if (state.Type !== 'Choice' || !Array.isArray(state.Choices)) continue;
    for (const rule of state.Choices as Record<string, unknown>[]) {
      if (!JSON.stringify(rule).includes(`"Variable":"${variable}"`)) continue;
      accepted ??= [];
      if (refusals.has(String(rule.Next))) continue;
      // The rules that lead on: absent (`Not IsPresent`, version 0) or one number.
      const not = rule.Not as Record<string, unknown> | undefined;
      if (not?.Variable === variable && not.IsPresent === true) accepted.push(0);
      if (rule.Variable === variable && rule.IsPresent === false) accepted.push(0);
      if (rule.Variable === variable && typeof rule.NumericEquals === 'number')
        accepted.push(rule.NumericEquals);
    }
  }
  return {
    handoverSent: [...new Set(sent)],
    ...(accepted === undefined ? {} : { handoverAccepted: [...new Set(accepted)].sort((a, b) => a - b) }),
  };
}

/** Every state of a definition by name, those of Parallel branches and Map iterators included. */
function statesOf(node: unknown, into = new Map<string, Record<string, unknown>>()) {
  if (Array.isArray(node)) for (const item of node) statesOf(item, into);
  else if (node !== null && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    const states = record.States;
    if (states !== null && typeof states === 'object' && !Array.isArray(states)) {
      for (const [name, state] of Object.entries(states as Record<string, Record<string, unknown>>))
        into.set(name, state);
    }
    for (const value of Object.values(record)) statesOf(value, into);
  }
  return into;
}
