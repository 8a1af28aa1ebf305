import type { IncidentCase } from './incident-case.ts';
import { CAUSED_BY_CHANGES } from './incidents-changes.ts';
import { CAUSED_ELSEWHERE } from './incidents-elsewhere.ts';

export type { IncidentCase, IncidentTruth } from './incident-case.ts';

/** Every incident case (their shape and truth: incident-case.ts). */
export const INCIDENT_CASES: IncidentCase[] = [...CAUSED_BY_CHANGES, ...CAUSED_ELSEWHERE];
