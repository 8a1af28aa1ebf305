import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { personLine } from '../../lambdas/kernel/people-text.ts';
import { HypothesesResult } from '../../lambdas/workflows/incident-investigation/contract.ts';
import { TelemetryConfig } from '../../lambdas/workflows/incident-investigation/telemetry/config.ts';
import { serviceMap } from '../../lambdas/workflows/incident-investigation/telemetry/context-tools.ts';
import { DEMO_TELEMETRY_CONFIG } from '../../local/telemetry/demo-services.ts';
import { INCIDENT_DEMO_AGENTS } from '../../statemachines/incident-investigation/demo.ts';

/**
 * The offline demo hypothesizer over the demo services' real service map: whatever service an
 * incident names, it submits the three to five hypotheses the schema asks for.
 */
async function hypothesesFor(said: string) {
  const config = TelemetryConfig.parse(DEMO_TELEMETRY_CONFIG);
  const map = await serviceMap({}, {
    config,
    reserve: async () => {},
  } as unknown as Parameters<typeof serviceMap>[1]);
  const request: MessageCreateParamsNonStreaming = {
    model: 'demo',
    max_tokens: 1000,
    tools: [{ name: 'submit_hypotheses', input_schema: { type: 'object' } }],
    messages: [
      {
        role: 'user',
        content: `Incident id: "inc-1"\n${personLine({ senderType: 'alert', senderId: 'cloudwatch', text: said, ts: '1' })}`,
      },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'service_map', input: {} }],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: `${map.output}\nEvidence ev-1 (service_map, config:service-map). Cite it as ev-1.`,
          },
        ],
      },
    ],
  };
  const reply = INCIDENT_DEMO_AGENTS.incident_hypothesizer?.play(request);
  if (reply?.kind !== 'message') throw new Error('the demo model answered with an error');
  const call = reply.content.find((b) => b.type === 'tool_use');
  return HypothesesResult.parse(call?.type === 'tool_use' ? call.input : undefined).hypotheses;
}

describe('the offline demo hypothesizer', () => {
  it('forms three hypotheses for a service whose only dependency is outside the map', async () => {
    const hypotheses = await hypothesesFor('[cloudwatch ALARM] payment-api-5xx is ALARM');
    expect(hypotheses.map((h) => [h.category, h.priority])).toEqual([
      ['application', 1],
      ['dependency', 2],
      ['capacity', 3],
    ]);
    expect(hypotheses[1]?.statement).toContain('[outside: acmepay (external)] [service: payment-api]');
  });

  it('fills up to three with a configuration change for a service without dependencies', async () => {
    const hypotheses = await hypothesesFor('[cloudwatch ALARM] session-cache-evictions is ALARM');
    expect(hypotheses.map((h) => h.category)).toEqual(['application', 'capacity', 'configuration']);
    expect(hypotheses.every((h) => h.statement.endsWith('[service: session-cache]'))).toBe(true);
  });

  it('reads the service named first, not the first of the map', async () => {
    const hypotheses = await hypothesesFor('payment-api 5xx above 5%, seen on checkout');
    expect(hypotheses[0]?.statement).toContain('A recent deployment of payment-api');
  });

  it('keeps one hypothesis per mapped dependency first', async () => {
    const hypotheses = await hypothesesFor('checkout latency');
    expect(hypotheses.map((h) => h.statement.replace(/^\[offline demo model\] /, ''))).toEqual([
      'payment-api, which checkout depends on, is failing or slow [service: payment-api]',
      'session-cache, which checkout depends on, is failing or slow [service: session-cache]',
      'A recent deployment of checkout regressed it [service: checkout]',
      'checkout lacks capacity for its load [service: checkout]',
    ]);
  });
});
