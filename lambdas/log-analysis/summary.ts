import type { Anomaly } from './anomalies.ts';
import type { CorrelatedEvents } from './correlation.ts';
import type { ErrorPattern } from './error-patterns.ts';
import type { MinedTemplate } from './template-groups.ts';
import type { TimelineEntry } from './timeline.ts';

/** What `summarize` renders (the parts of a `LogAnalysis`). */
export interface SummaryInput {
  lineCount: number;
  timeRange?: { start: string; end: string };
  services: string[];
  templates: MinedTemplate[];
  /** A sample message per template id, shown beside templates with variable parts. */
  samples?: Map<string, string>;
  errorPatterns: ErrorPattern[];
  anomalies: Anomaly[];
  correlated: CorrelatedEvents[];
  timeline: TimelineEntry[];
}

/** Options of `summarize`. */
export interface SummaryOptions {
  /** The most tokens the text may take, counted as characters / 4 (a cautious rule for English and logs). @default 2000 */
  tokenBudget?: number;
  /** Sample messages and templates are cut to this many characters. @default 240 */
  maxLineChars?: number;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Renders an analysis as text for a model, most important first (anomalies, root events,
 * error patterns, templates, timeline), stopping before the token budget runs out and saying
 * how much was left out. A million lines become a page.
 */
export function summarize(analysis: SummaryInput, options: SummaryOptions = {}): string {
  const budget = (options.tokenBudget ?? 2000) * 4;
  const max = options.maxLineChars ?? 240;
  // Rates over the whole time range, so the model sees how often, not only how many.
  const minutes = analysis.timeRange
    ? (Date.parse(analysis.timeRange.end) - Date.parse(analysis.timeRange.start)) / 60_000
    : 0;
  const rate = (count: number) => (minutes >= 1 ? ` (${Math.round((count / minutes) * 100) / 100}/min)` : '');
  const head = [
    `${analysis.lineCount} log lines, ${analysis.templates.length} templates, services: ${analysis.services.join(', ') || 'unknown'}` +
      (analysis.timeRange ? `, from ${analysis.timeRange.start} to ${analysis.timeRange.end}` : ''),
  ];
  const sections: [string, string[]][] = [
    [
      'Anomalies',
      analysis.anomalies.map(
        (a) =>
          `- [${a.severity}] ${a.type} ${a.timeWindow.start}..${a.timeWindow.end}: ${cut(a.description, max)}`,
      ),
    ],
    [
      'Root events by trace',
      analysis.correlated
        .filter((c) => c.rootEvent)
        .map(
          (c) =>
            `- ${c.traceId ?? '?'} path ${c.propagationPath.join(' -> ')}; root ${c.rootEvent?.timestamp} ${c.rootEvent?.service}: ${cut(c.rootEvent?.message ?? '', max)}`,
        ),
    ],
    [
      'Error patterns (count, level, first..last, services)',
      analysis.errorPatterns.map(
        (p) =>
          `- ${p.count}x${rate(p.count)} ${p.level} ${p.firstSeen}..${p.lastSeen} [${p.affectedServices.join(', ')}] ${cut(p.pattern, max)}` +
          (p.sampleMessages[0] && p.sampleMessages[0] !== p.pattern
            ? `\n  e.g. ${cut(p.sampleMessages[0], max)}`
            : ''),
      ),
    ],
    [
      'Templates (count, rate over the whole range)',
      analysis.templates.map((t) => {
        const sample = analysis.samples?.get(t.id);
        return `- ${t.count}x${rate(t.count)} ${cut(t.template, max)}${sample && sample !== t.template ? `\n  e.g. ${cut(sample, max)}` : ''}`;
      }),
    ],
    [
      'Timeline',
      analysis.timeline.map(
        (e) =>
          `- ${e.timestamp} ${e.service} ${e.severity}${e.count > 1 ? ` (${e.count}x)` : ''}: ${cut(e.event, max)}`,
      ),
    ],
  ];
  // Even the first line obeys the budget.
  let text = cut(head.join('\n'), budget);
  for (const [title, lines] of sections) {
    if (lines.length === 0) continue;
    const header = `\n\n${title}:`;
    // Room for the header and the note on what was left out.
    if (text.length + header.length + 40 > budget) break;
    text += header;
    let shown = 0;
    for (const line of lines) {
      if (text.length + line.length + 1 + 40 > budget) break;
      text += `\n${line}`;
      shown++;
    }
    if (shown < lines.length) text += `\n(${lines.length - shown} more left out)`;
  }
  return text;
}
