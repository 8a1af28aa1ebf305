import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ToolContext } from '../../lambdas/tools/invocation.ts';
import {
  planRound,
  type startIncident,
} from '../../lambdas/workflows/incident-investigation/investigation.ts';
import type { IncidentRecord } from '../../lambdas/workflows/incident-investigation/record.ts';
import { firstNodes, type HypothesisNode } from '../../lambdas/workflows/incident-investigation/tree.ts';

/** What an investigation step works through. */
type InvestigationDeps = Parameters<typeof startIncident>[1];

/**
 * The data tools' query scopes: what the round plan sends and what the documentation shows are
 * scopes the kernel's ToolContext accepts (`round-2:h3`); a `/` is refused there, so a README
 * showing `round-2/h3` would teach a scope that fails at run time.
 */

const readme = readFileSync(
  new URL('../../lambdas/workflows/incident-investigation/telemetry/README.md', import.meta.url),
  'utf8',
);

const [first] = firstNodes({
  hypotheses: [
    {
      statement: 'provider timeouts',
      category: 'dependency',
      priority: 1,
      confirming_evidence: 'c',
      refuting_evidence: 'r',
      suggested_queries: [],
    },
  ],
});

describe('query scopes', () => {
  it('plans each hypothesis of a round under a scope the ToolContext accepts', async () => {
    const nodes: HypothesisNode[] = [
      { ...(first as HypothesisNode), status: 'branched' },
      { ...(first as HypothesisNode), id: 'H1.2', parentId: 'H1', depth: 2 },
    ];
    const record = { startedAt: '2015-01-01T00:00:00Z', roundsDone: 1, rounds: [], progress: {} };
    const deps = {
      incidents: {
        getRecord: async () => record as unknown as IncidentRecord,
        listNodes: async () => nodes,
        updateRecord: async () => {},
      },
      conversations: { getConversation: async () => undefined },
      config: {
        budget: { maxRounds: 4, maxMinutes: 60, maxTokens: 1000 },
        maxHypothesesPerRound: 5,
        maxDepth: 3,
        services: [],
      },
      now: () => new Date('2015-01-01T00:01:00Z'),
    } as unknown as InvestigationDeps;

    const plan = await planRound({ conversationId: 'c', turn: 3 }, deps);

    if (plan.decision !== 'investigate') throw new Error(`no round: ${JSON.stringify(plan)}`);
    expect(plan.items.map((i) => i.scope)).toEqual(['round-2:h1.2']);
    for (const item of plan.items) expect(ToolContext.safeParse({ scope: item.scope }).success).toBe(true);
  });

  it('documents only scopes the ToolContext accepts, and it refuses a slash', () => {
    const shown = [...readme.matchAll(/`(round-[^`\s]+)`/g)].map((m) => m[1] ?? '');
    expect(shown.length).toBeGreaterThan(0);
    for (const scope of shown) expect(ToolContext.safeParse({ scope }).success, scope).toBe(true);
    expect(ToolContext.safeParse({ scope: 'round-2/h3' }).success).toBe(false);
  });
});
