import { safeCut } from '../../../redaction/index.ts';
import type { TelemetryConfig } from './config.ts';
import type { EvidenceDraft, EvidenceLedger } from './evidence.ts';
import type { DeploymentsSource, IncidentsSource, LogsSource, MetricsSource } from './sources.ts';
import type { TemplateReviewDeps } from './template-advisor.ts';

/** What the telemetry tools run with: configuration, the ledger, the enabled sources, a clock. */
export interface TelemetryDeps {
  config: TelemetryConfig;
  ledger: EvidenceLedger;
  logs: Partial<Record<'cloudwatch' | 'datadog', LogsSource>>;
  metrics: Partial<Record<'cloudwatch' | 'datadog', MetricsSource>>;
  deployments?: DeploymentsSource;
  incidents?: IncidentsSource;
  /** The model's review of query_logs' uncertain templates; only with `logTemplateReview.enabled`. */
  templateReview?: TemplateReviewDeps;
  now: () => number;
}

/**
 * One call's dependencies: the shared ones and `reserve`, which counts the query in its scope
 * (or refuses it). Each tool calls it after validating its arguments and right before it
 * reads a source, so refused and invalid queries cost nothing and every read is counted.
 */
export interface CallDeps extends TelemetryDeps {
  reserve(): Promise<void>;
  /** The conversation the call is for (whose ledger a model review is counted in). */
  conversationId?: string;
}

/** What one tool produced: the text for the model and what the ledger keeps of it. */
export interface ToolOutcome {
  output: string;
  evidence: Omit<EvidenceDraft, 'tool' | 'scope'>;
}

/**
 * Cuts text to a number of characters, saying so, never inside a secret or personal value the
 * redaction layer finds (the cut moves before it).
 */
export async function cap(text: string, maxChars: number): Promise<string> {
  if (text.length <= maxChars) return text;
  const note = '\n(cut to fit the output budget)';
  return `${text.slice(0, await safeCut(text, Math.max(0, maxChars - note.length), 'head'))}${note}`;
}

export function isoMinute(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).concat('Z');
}
