import * as z from 'zod';
import { requestJson } from './http-json.ts';
import type { IncidentDetails, IncidentsSource } from './sources.ts';

/**
 * PagerDuty's REST API v2 behind the incidents port: `GET /incidents/{id}` and
 * `GET /incidents/{id}/log_entries`, with `Authorization: Token token=<key>` and the v2 Accept
 * header. The base URL is `https://api.pagerduty.com` (or `https://api.eu.pagerduty.com`).
 */

const Incident = z.object({
  incident: z.object({
    id: z.string(),
    title: z.string(),
    status: z.string(),
    urgency: z.string().optional(),
    created_at: z.string(),
    html_url: z.string().optional(),
    service: z.object({ summary: z.string().optional() }).optional(),
  }),
});

const LogEntries = z.object({
  log_entries: z
    .array(z.object({ type: z.string(), created_at: z.string(), summary: z.string().optional() }))
    .default([]),
});

export class PagerDutySource implements IncidentsSource {
  readonly name = 'pagerduty';

  constructor(
    private readonly options: { baseUrl: string; token: () => Promise<string>; fetch?: typeof fetch },
  ) {}

  async get(incidentId: string): Promise<IncidentDetails> {
    const headers = {
      authorization: `Token token=${await this.options.token()}`,
      accept: 'application/vnd.pagerduty+json;version=2',
    };
    const base = this.options.baseUrl.replace(/\/$/, '');
    const id = encodeURIComponent(incidentId);
    const { incident } = await requestJson(
      this.name,
      `${base}/incidents/${id}`,
      { headers },
      Incident,
      this.options.fetch,
    );
    const entries = await requestJson(
      this.name,
      `${base}/incidents/${id}/log_entries?limit=25&is_overview=true`,
      { headers },
      LogEntries,
      this.options.fetch,
    );
    return {
      id: incident.id,
      title: incident.title,
      status: incident.status,
      createdAt: incident.created_at,
      ...(incident.urgency ? { urgency: incident.urgency } : {}),
      ...(incident.service?.summary ? { service: incident.service.summary } : {}),
      ...(incident.html_url ? { url: incident.html_url } : {}),
      log: entries.log_entries
        .map((e) => ({ at: e.created_at, type: e.type.replace(/_log_entry$/, ''), summary: e.summary ?? '' }))
        .sort((a, b) => a.at.localeCompare(b.at)),
    };
  }
}
