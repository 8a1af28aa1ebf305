import * as z from 'zod';
import { Text } from './shared.ts';

/** The triager's result (profiles/triager.ts). */

const IsoTime = z.iso.datetime({ offset: true });

export const Severity = z.enum(['low', 'medium', 'high', 'critical']);

/** `submit_triage`: the TriageResult. */
export const TriageResult = z.strictObject({
  incident_summary: Text(1_000),
  affected_services: z.array(Text(100)).min(1).max(10),
  symptoms: z.array(Text(300)).max(10),
  error_messages: z.array(Text(300)).max(10),
  time_window: z.strictObject({ start: IsoTime, end: IsoTime }),
  severity: Severity,
  /** Runbooks, postmortems or known issues that look related (names or short notes). */
  related_knowledge: z.array(Text(300)).max(10),
});
export type TriageResult = z.infer<typeof TriageResult>;
