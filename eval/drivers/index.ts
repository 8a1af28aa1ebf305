import type { SlackAgentsConfigInput } from '../../infra/config.ts';
import type { EvalCase } from '../cases/index.ts';
import type { Session } from '../session.ts';
import { bugConfig, runBugCase } from './bug.ts';
import { channelConfig, runChannelCase } from './channel.ts';
import type { DriverRun } from './driver.ts';
import { incidentConfig, runIncidentCase } from './incident.ts';
import { interviewConfig, runInterviewCase } from './interview.ts';
import { pipelineConfig, runPipelineCase } from './pipeline.ts';

/** The stack configuration a case's sandbox is synthesized with. */
export function configFor(c: EvalCase): SlackAgentsConfigInput {
  switch (c.workflow) {
    case 'incident_investigation':
      return incidentConfig();
    case 'bug_investigation':
      return bugConfig(c);
    case 'channel_conversations':
      return channelConfig();
    case 'issue_pipeline':
      return pipelineConfig(c);
    case 'requirements_interview':
      return interviewConfig();
  }
}

export function runDriver(session: Session, c: EvalCase, deadline: number): Promise<DriverRun> {
  switch (c.workflow) {
    case 'incident_investigation':
      return runIncidentCase(session, c, deadline);
    case 'bug_investigation':
      return runBugCase(session, c, deadline);
    case 'channel_conversations':
      return runChannelCase(session, c, deadline);
    case 'issue_pipeline':
      return runPipelineCase(session, c, deadline);
    case 'requirements_interview':
      return runInterviewCase(session, c, deadline);
  }
}
