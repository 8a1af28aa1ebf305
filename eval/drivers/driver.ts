import type { Verdict } from '../types.ts';

/** What a driver hands back after running and grading one case. */
export interface DriverRun {
  verdict: Verdict;
  firstAnswerMs?: number;
  endMs: number;
  /** The conversations the case started (their ledgers give the cost). */
  conversationIds: string[];
  gradingMs: number;
}
