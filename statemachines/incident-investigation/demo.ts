import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type {
  ConclusionResult,
  EvaluationResult,
  HypothesesResult,
  RemediationPlanResult,
  TriageResult,
} from '../../lambdas/workflows/incident-investigation/contract.ts';
import { INCIDENT_PROFILES } from '../../lambdas/workflows/incident-investigation/profiles/index.ts';
import { type DemoAgents, playing } from '../demo/agents.ts';
import type { MessageReply } from '../demo/reply.ts';
import { DEMO_LABEL, excerpt, labelled, promptLines } from '../demo/text.ts';
import { currentTurn, errorsOf, evidenceId, mainService, serviceMap } from './demo-reading.ts';

/**
 * The incident investigation's agents as the offline demo model plays them (the module's
 * `demoAgents`): no AI, fixed rules over what the
 * real data tools return, labelled in everything it writes. It calls the telemetry tools and
 * cites the evidence ids their results give, so the whole path (tools, evidence ledger, the
 * rules in code, the tree, the conclusion, the plan) runs offline.
 *
 * - Triage: the service map; the services named in the command (else the first), severity high.
 * - Hypotheses (always the 3 to 5 the schema asks for): each mapped dependency of the service is
 *   failing (one each, at most three), a recent deployment of the service regressed it, each
 *   dependency outside the map (`acmepay (external)`) is failing, as seen from the service's
 *   own logs, the service lacks capacity, and, only while fewer than three, a configuration
 *   change broke it. Each names the service whose logs it reads as `[service: x]`, and an
 *   outside dependency as `[outside: y]`.
 * - Investigation of one hypothesis: its service's error and timeout logs, then its recent
 *   deployments. 50 or more error-like events starting within 30 minutes after a deployment
 *   finished: confirm (both cited, strong), except for a capacity or outside-dependency
 *   hypothesis, which that deployment explains away: prune; 50 or more otherwise: continue
 *   (weak); fewer: prune.
 * - Conclusion: the confirmed hypothesis with the findings the notes list, or INCONCLUSIVE.
 * - Remediation: the first configured skill that changes something, for the root cause's
 *   service, then a step for people to watch the service.
 */

type Reply = (request: MessageCreateParamsNonStreaming) => MessageReply;

let counter = 0;
const call = (name: string, input: unknown): MessageReply => {
  counter += 1;
  return {
    kind: 'message',
    content: [
      { type: 'tool_use', id: `toolu_demo_incident_${String(counter).padStart(6, '0')}`, name, input },
    ],
    stopReason: 'tool_use',
  };
};
/** Ends the turn through the profile's own final tool (the request's last tool). */
const submit = (request: MessageCreateParamsNonStreaming, result: unknown) =>
  call((request.tools?.at(-1) as { name?: string } | undefined)?.name ?? 'submit_result', result);

const triage: Reply = (request) => {
  const turn = currentTurn(request);
  if (turn.results.length === 0) return call('service_map', {});
  const services = serviceMap(request);
  const main = mainService(request, services);
  const affected = main
    ? [main.name, ...main.dependencies.filter((d) => services.some((s) => s.name === d))]
    : ['unknown'];
  const now = Date.now();
  const result: TriageResult = {
    incident_summary: labelled(
      `An incident reported on ${main?.name ?? 'an unknown service'}; the service map lists what it depends on. The demo model reads no symptom beyond the command.`,
    ),
    affected_services: affected,
    symptoms: [excerpt(promptLines(turn.prompt)[0]?.text ?? 'as reported', 300)],
    error_messages: [],
    time_window: { start: new Date(now - 90 * 60_000).toISOString(), end: new Date(now).toISOString() },
    severity: 'high',
    related_knowledge: [],
  };
  return submit(request, result);
};

const hypothesize: Reply = (request) => {
  const services = serviceMap(request);
  const main = mainService(request, services);
  const name = main?.name ?? 'the service';
  const configured = (main?.dependencies ?? []).filter((d) => services.some((s) => s.name === d));
  const hypothesis = (
    statement: string,
    service: string,
    category: HypothesesResult['hypotheses'][number]['category'],
  ) => ({
    statement: `${DEMO_LABEL} ${statement} [service: ${service}]`,
    category,
    priority: 1,
    confirming_evidence: `errors or timeouts in ${service}'s logs starting soon after one of its deployments`,
    refuting_evidence: `no errors in ${service}'s logs in the window`,
    suggested_queries: [
      { tool: 'query_logs', purpose: `errors and timeouts of ${service}` },
      { tool: 'recent_deployments', purpose: `deployments of ${service}` },
    ],
  });
  const outside = (main?.dependencies ?? []).filter((d) => !services.some((s) => s.name === d));
  const core = [
    ...configured
      .slice(0, 3)
      .map((d) => hypothesis(`${d}, which ${name} depends on, is failing or slow`, d, 'dependency')),
    hypothesis(`A recent deployment of ${name} regressed it`, name, 'application'),
    ...outside.map((d) =>
      hypothesis(`${d}, which ${name} calls, is failing or slow [outside: ${d}]`, name, 'dependency'),
    ),
    hypothesis(`${name} lacks capacity for its load`, name, 'capacity'),
  ];
  const fillers = [hypothesis(`A configuration change of ${name} broke it`, name, 'configuration')];
  const list = [...core, ...fillers.slice(0, Math.max(0, 3 - core.length))]
    .slice(0, 5)
    .map((h, i) => ({ ...h, priority: i + 1 }));
  return submit(request, { hypotheses: list } satisfies HypothesesResult);
};

const investigate: Reply = (request) => {
  const turn = currentTurn(request);
  const id = /You investigate hypothesis (H[\d.]+)/.exec(turn.prompt)?.[1] ?? 'H1';
  const service = /\[service: ([^\]]+)\]/.exec(turn.prompt)?.[1];
  if (service === undefined) {
    return submit(request, {
      hypothesis_id: id,
      evidence_strength: 'none',
      reasoning: labelled('This hypothesis names no service, so the demo model cannot query for it.'),
      confidence: 0,
      action: 'prune',
      findings: [],
    } satisfies EvaluationResult);
  }
  const logs = turn.results.find((r) => r.includes('(query_logs,'));
  if (logs === undefined)
    return call('query_logs', { service, filterPattern: '?ERROR ?error ?timeout', lastMinutes: 90 });
  const deploys = turn.results.find((r) => r.includes('(recent_deployments,'));
  if (deploys === undefined) return call('recent_deployments', { service, lastMinutes: 180 });
  const errors = errorsOf(logs);
  const finished = [...deploys.matchAll(/finished (\S+?) \(/g)]
    .map((m) => Date.parse(m[1] ?? ''))
    .filter(Number.isFinite);
  const deployBefore =
    errors.first === undefined
      ? undefined
      : finished.find((at) => at <= (errors.first ?? 0) && (errors.first ?? 0) - at <= 30 * 60_000);
  const logsId = evidenceId(logs) ?? 'none';
  const deployId = evidenceId(deploys) ?? 'none';
  const many = errors.count >= 50;
  // A deployment just before the errors explains them: it confirms a hypothesis that blames the
  // service or a dependency inside the map, and explains away one that blames capacity or
  // something outside.
  const explainedAway = /\(capacity, priority/.test(turn.prompt) || /\[outside: [^\]]+\]/.test(turn.prompt);
  const result: EvaluationResult =
    many && deployBefore !== undefined && explainedAway
      ? {
          hypothesis_id: id,
          evidence_strength: 'contradicting',
          reasoning: labelled(
            `${errors.count} error-like events in ${service}'s logs began soon after a deployment of ${service} finished, which points at that deployment instead.`,
          ),
          confidence: 10,
          action: 'prune',
          findings: [
            {
              finding: `${service} was deployed shortly before the errors began`,
              evidence_ids: [deployId],
              strength: 'contradicting',
            },
          ],
        }
      : many && deployBefore !== undefined
        ? {
            hypothesis_id: id,
            evidence_strength: 'strong',
            reasoning: labelled(
              `${errors.count} error-like events in ${service}'s logs began ${Math.round(((errors.first ?? 0) - deployBefore) / 60_000)} min after a deployment of ${service} finished.`,
            ),
            confidence: 85,
            action: 'confirm',
            findings: [
              {
                finding: `${errors.count} error-like events in ${service}'s logs`,
                evidence_ids: [logsId],
                strength: 'strong',
              },
              {
                finding: `${service} was deployed shortly before the errors began`,
                evidence_ids: [deployId],
                strength: 'strong',
              },
            ],
          }
        : many
          ? {
              hypothesis_id: id,
              evidence_strength: 'weak',
              reasoning: labelled(
                `${errors.count} error-like events in ${service}'s logs, but no deployment of ${service} shortly before them.`,
              ),
              confidence: 40,
              action: 'continue',
              findings: [
                {
                  finding: `${errors.count} error-like events in ${service}'s logs`,
                  evidence_ids: [logsId],
                  strength: 'weak',
                },
              ],
            }
          : {
              hypothesis_id: id,
              evidence_strength: 'contradicting',
              reasoning: labelled(`Only ${errors.count} error-like events in ${service}'s logs.`),
              confidence: 5,
              action: 'prune',
              findings: [
                {
                  finding: `${service}'s logs show ${errors.count} error-like events`,
                  evidence_ids: [logsId],
                  strength: 'contradicting',
                },
              ],
            };
  return submit(request, result);
};

/** The confirmed hypothesis's service as the primary cause, resting on its strong findings. */
const primaryCause = (component: string, statement: string, strong: string[]) => ({
  component,
  change_kind: /deploy/i.test(statement) ? ('deploy' as const) : ('dependency' as const),
  change: statement.replace(/\s*\[[^\]]*\]/g, '').slice(0, 300),
  discriminating_evidence: strong.slice(0, 5),
});

const conclude: Reply = (request) => {
  const prompt = currentTurn(request).prompt;
  const confirmed = /^(H[\d.]+) \[confirmed[^\]]*\]: (.*)$/m.exec(prompt);
  if (!confirmed) {
    // What the tree's findings cite is what was looked at: said as checked, without a cause.
    const seen = [...new Set([...prompt.matchAll(/\bev-\d+\b/g)].map((m) => m[0]))].slice(0, 10);
    return submit(request, {
      outcome: 'inconclusive',
      root_cause: labelled('No hypothesis was confirmed.'),
      confidence: 'low',
      evidence_chain: [],
      alternative_explanations: [],
      unknowns: [labelled('What the hypotheses did not cover')],
      gaps: [labelled("The demo model only checks logs and deployments of each hypothesis's service.")],
      ...(seen.length > 0
        ? {
            checked: [
              { what: labelled("logs and deployments of each hypothesis's service"), evidence_ids: seen },
            ],
          }
        : {}),
    } satisfies ConclusionResult);
  }
  const block = prompt.slice(prompt.indexOf(confirmed[0]) + confirmed[0].length).split(/\nH\d/)[0] ?? '';
  const chain = [...block.matchAll(/^ {2}finding \((strong|weak)\): (.*) \[([^\]]*)\]$/gm)].map((m) => ({
    finding: m[2] ?? '',
    evidence_ids: (m[3] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    strength: (m[1] ?? 'weak') as 'strong' | 'weak',
  }));
  const statement = (confirmed[2] ?? '').trim();
  const service = /\[service: ([^\]]+)\]/.exec(statement)?.[1];
  const strong = chain.filter((c) => c.strength === 'strong').flatMap((c) => c.evidence_ids);
  return submit(request, {
    outcome: 'root_cause',
    root_cause: statement,
    ...(service && strong[0] ? { primary_cause: primaryCause(service, statement, strong) } : {}),
    hypothesis_id: confirmed[1],
    confidence: 'high',
    evidence_chain: chain,
    alternative_explanations: [labelled('The other hypotheses, which the tree shows pruned or open')],
    unknowns: [labelled('Why the deployment caused the errors: the demo model does not read diffs')],
    gaps: [],
  } satisfies ConclusionResult);
};

const remediate: Reply = (request) => {
  const prompt = currentTurn(request).prompt;
  const service = /\[service: ([^\]]+)\]/.exec(prompt)?.[1] ?? 'the service';
  const skill = /Configured skills: ([a-z][a-z0-9_-]*) \(changes systems/.exec(prompt)?.[1];
  const plan: RemediationPlanResult = {
    steps: [
      ...(skill
        ? [
            {
              action: labelled(`Run ${skill} for ${service}`),
              skill,
              parameters: { service },
              rollback: `redeploy the current version of ${service}`,
              risk_level: 'medium' as const,
              requires_approval: true,
            },
          ]
        : []),
      {
        action: labelled(`Watch ${service}'s error rate and latency for 15 minutes`),
        risk_level: 'low',
        requires_approval: false,
      },
    ],
    estimated_recovery_time: '15 minutes',
    monitoring: [`${service} error-like log events per minute`, `${service} LatencyMs p99`],
  };
  return submit(request, plan);
};

/** The incident investigation's agents, by profile name. */
export const INCIDENT_DEMO_AGENTS: DemoAgents = playing(INCIDENT_PROFILES, {
  incident_triager: triage,
  incident_hypothesizer: hypothesize,
  incident_investigator: investigate,
  incident_concluder: conclude,
  incident_remediator: remediate,
});
