import { BUG_CASES, type BugCase } from './bugs.ts';
import { CHANNEL_CASES, type ChannelCase } from './channel.ts';
import { INCIDENT_CASES, type IncidentCase } from './incidents.ts';
import { INTERVIEW_CASES, type InterviewCase } from './interview.ts';
import { PIPELINE_CASES, type PipelineCase } from './pipeline.ts';

/** Every case, by workflow. */
export type EvalCase = IncidentCase | BugCase | ChannelCase | PipelineCase | InterviewCase;

export const ALL_CASES: readonly EvalCase[] = [
  ...INCIDENT_CASES,
  ...BUG_CASES,
  ...PIPELINE_CASES,
  ...INTERVIEW_CASES,
  ...CHANNEL_CASES,
];

export function findCase(id: string): EvalCase {
  const found = ALL_CASES.find((c) => c.id === id);
  if (!found) throw new Error(`no eval case ${id}`);
  return found;
}

/** `*` matches any run of characters; several patterns separated by commas. */
export function matchesGlob(id: string, patterns: string): boolean {
  return patterns.split(',').some((p) => {
    const re = new RegExp(
      `^${p
        .trim()
        .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
        .replaceAll('*', '.*')}$`,
    );
    return re.test(id);
  });
}

export function selectCases(options: { workflow: string; cases?: string }): EvalCase[] {
  return ALL_CASES.filter(
    (c) =>
      (options.workflow === 'all' || c.workflow === options.workflow) &&
      (options.cases === undefined || matchesGlob(c.id, options.cases)),
  );
}
