import {
  type BugInvestigationResult,
  bugInvestigator,
} from '../../workflows/bug-investigation/profiles/bug-investigator.ts';
import type {
  AnalysisTurnOutput,
  ClarificationTurnOutput,
  PrdTurnOutput,
} from '../../workflows/requirements-interview/contract.ts';
import {
  type PrdWriterResult,
  prdWriter,
} from '../../workflows/requirements-interview/profiles/prd-writer.ts';
import {
  type AnalystResult,
  requirementsAnalyst,
} from '../../workflows/requirements-interview/profiles/requirements-analyst.ts';
import {
  type ClarifierResult,
  requirementsClarifier,
} from '../../workflows/requirements-interview/profiles/requirements-clarifier.ts';
import type { BugTurnOutput } from '../contract.ts';
import type { AgentProfile } from '../profile.ts';

/**
 * Every agent role, by the name AgentTurn's input gives (`AgentProfileName`). A new role is a
 * module under `profiles/` and an entry here; `runAgentTurn` serves every entry.
 */
export interface ProfileRegistry {
  bug_investigator: AgentProfile<BugInvestigationResult, BugTurnOutput>;
  requirements_clarifier: AgentProfile<ClarifierResult, ClarificationTurnOutput>;
  prd_writer: AgentProfile<PrdWriterResult, PrdTurnOutput>;
  requirements_analyst: AgentProfile<AnalystResult, AnalysisTurnOutput>;
}

/** The task output of each profile's turns. */
export type ProfileOutputs = {
  [P in keyof ProfileRegistry]: ProfileRegistry[P] extends AgentProfile<infer _R, infer O> ? O : never;
};

export const PROFILES: ProfileRegistry = {
  bug_investigator: bugInvestigator,
  requirements_clarifier: requirementsClarifier,
  prd_writer: prdWriter,
  requirements_analyst: requirementsAnalyst,
};
