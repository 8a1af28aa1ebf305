import type { Verdict } from '../types.ts';

/**
 * Scripted answers: for every case, its true answer, which must pass its grader, and plausible
 * wrong ones, which must fail it (test/eval/scripted-answers.test.ts runs them all, with no model).
 */
export interface ScriptedAnswer {
  /** What the answer is: `true answer`, `adjacent component`, `whole-file range`... */
  label: string;
  right: boolean;
  grade(): Promise<Verdict>;
}
