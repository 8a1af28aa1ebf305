import type { EvalCase } from '../cases/index.ts';
import { bugAnswers } from './bug.ts';
import { incidentAnswers } from './incident.ts';
import { channelAnswers, interviewAnswers, pipelineAnswers } from './judged.ts';
import type { ScriptedAnswer } from './scripted.ts';

export type { ScriptedAnswer } from './scripted.ts';

/** Every scripted answer of a case: its true ones and its plausible wrong ones. */
export async function scriptedAnswers(c: EvalCase): Promise<ScriptedAnswer[]> {
  switch (c.workflow) {
    case 'incident_investigation':
      return incidentAnswers(c);
    case 'bug_investigation':
      return bugAnswers(c);
    case 'issue_pipeline':
      return pipelineAnswers(c);
    case 'requirements_interview':
      return interviewAnswers(c);
    case 'channel_conversations':
      return channelAnswers(c);
  }
}
