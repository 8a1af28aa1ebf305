import type { Verdict } from '../types.ts';

/** What a driver hands back after running and grading one case. */
export interface DriverRun {
  verdict: Verdict;
  firstAnswerMs?: number;
  endMs: number;
  /** The conversations the case started (their ledgers give the cost). */
  conversationIds: string[];
  /** The case's model cost in micro-USD when it is not in conversation ledgers (channels: the day's spend counter). */
  costMicroUsd?: number;
  gradingMs: number;
}
