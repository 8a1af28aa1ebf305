import { defineProfiles } from '../../../agents/profile.ts';
import { issueAnalyst, issueAnalystAnswer } from './analyst.ts';
import { issueReviewer, issueReviewerAnswer } from './reviewer.ts';
import { issueTriage, issueTriageAnswer } from './triage.ts';
import { issueWriter, issueWriterAnswer } from './writer.ts';

/**
 * The issue pipeline's agents, each its own profile: triage, analyst and reviewer
 * read the code (the reviewer through the diff only), the writer reads and writes on the
 * pipeline's work branch. Each submits through its own final tool; each answers another
 * agent's question in a profile of its own (`_answer`), with its read-only tools only.
 */
export const ISSUE_PIPELINE_PROFILES = defineProfiles({
  issue_triage: issueTriage,
  issue_analyst: issueAnalyst,
  issue_writer: issueWriter,
  issue_reviewer: issueReviewer,
  issue_triage_answer: issueTriageAnswer,
  issue_analyst_answer: issueAnalystAnswer,
  issue_writer_answer: issueWriterAnswer,
  issue_reviewer_answer: issueReviewerAnswer,
});
