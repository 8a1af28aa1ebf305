import { type Exchange, JUDGE_LANE } from '../model-proxy.ts';
import type { JudgeTransport } from './judge.ts';

/**
 * The judge's exchanges kept with a case's recording, and answered from it on replay: a replay
 * grades with the verdicts the recorded run got, without reaching any model.
 */

/** Digits masked, as model requests are matched (times and ids differ between runs). */
const keyOf = (message: string) => message.replace(/\d+/g, '#');

/** `transport`, keeping every exchange in `kept`. */
export function recordingJudge(transport: JudgeTransport, kept: Exchange[]): JudgeTransport {
  return async (system, message) => {
    const reply = await transport(system, message);
    kept.push({ lane: JUDGE_LANE, key: keyOf(message), request: { message }, status: 200, response: reply });
    return reply;
  };
}

/**
 * Answers from the recorded judge exchanges (the same message first, else the next unused);
 * a message with none goes to `fallback` (a configured judge), or fails as not judged. With no
 * recorded exchange and no fallback there is no judge, as in the run recorded without one.
 */
export function replayJudge(
  recorded: readonly Exchange[],
  fallback: JudgeTransport | undefined,
): JudgeTransport | undefined {
  if (recorded.length === 0) return fallback;
  const unused = [...recorded];
  return async (system, message) => {
    const exact = unused.findIndex((e) => e.key === keyOf(message));
    const at = exact >= 0 ? exact : 0;
    const found = unused.length > 0 ? unused.splice(at, 1)[0] : undefined;
    if (found) return String(found.response);
    if (fallback) return fallback(system, message);
    throw new Error('replay: no recorded judge answer for this message');
  };
}
