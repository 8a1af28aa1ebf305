import { type CallDeps, cap, type ToolOutcome } from './deps.ts';
import { QueryRefusedError } from './errors.ts';
import type { Deployment } from './sources.ts';
import type { GetIncidentArgs, RecentDeploymentsArgs, ServiceMapArgs } from './tools.ts';
import { isoRange, requireService, resolveWindow } from './window.ts';

/** recent_deployments, service_map and get_incident: the context around the logs and metrics. */

export async function recentDeployments(args: RecentDeploymentsArgs, deps: CallDeps): Promise<ToolOutcome> {
  const { config } = deps;
  const source = deps.deployments;
  if (source === undefined)
    throw new QueryRefusedError('source_disabled', 'no deployments source is enabled');
  // Without a service the query covers the configured stacks only: bounded by configuration.
  const services = args.service === undefined ? config.services : [requireService(config, args.service)];
  const stacks = services.flatMap((s) => s.stacks.map((stack) => ({ stack, service: s.name })));
  if (stacks.length === 0)
    throw new QueryRefusedError(
      'invalid_query',
      `no CloudFormation stacks are configured for ${args.service ?? 'any service'}`,
    );
  const window = resolveWindow(args, config, deps.now());
  await deps.reserve();
  const deployments = await source.list(
    stacks.map((s) => s.stack),
    window,
  );
  const serviceOf = new Map(stacks.map((s) => [s.stack, s.service]));
  const range = isoRange(window);
  const head = `${deployments.length} deployments of ${stacks.map((s) => s.stack).join(', ')} (${source.name}), ${range.start} .. ${range.end}.${window.note ? `\nNote: ${window.note}.` : ''}`;
  const lines = deployments.map((d) => describeDeployment(d, serviceOf.get(d.stack)));
  return {
    output: await cap([head, ...lines].join('\n'), config.outputTokenBudget * 4),
    evidence: {
      source: `${source.name}:${stacks.map((s) => s.stack).join(',')}`,
      query: `deployments of ${args.service ?? 'all services'}`,
      timeRange: range,
      summary:
        deployments.length === 0
          ? 'no deployments in the window'
          : deployments
              .slice(0, 5)
              .map((d) => `${d.stack} ${d.status} started ${new Date(d.started).toISOString()}`)
              .join('; '),
    },
  };
}

function describeDeployment(d: Deployment, service: string | undefined): string {
  const took =
    d.finished === undefined
      ? 'still in progress'
      : `finished ${new Date(d.finished).toISOString()} (${Math.round((d.finished - d.started) / 1000)} s)`;
  const changes = d.changes
    .slice(0, 8)
    .map(
      (c) =>
        `${c.type} ${c.logicalId}${c.physicalId ? ` -> ${c.physicalId}` : ''} ${c.status}${c.reason ? ` (${c.reason})` : ''}`,
    );
  return (
    `- ${d.stack}${service ? ` [${service}]` : ''}: ${d.status}, started ${new Date(d.started).toISOString()}, ${took}` +
    (d.reason ? `; reason: ${d.reason}` : '') +
    (changes.length > 0
      ? `\n  changed: ${changes.join('; ')}${d.changes.length > 8 ? `; and ${d.changes.length - 8} more` : ''}`
      : '')
  );
}

export async function serviceMap(args: ServiceMapArgs, deps: CallDeps): Promise<ToolOutcome> {
  const { config } = deps;
  const focus = args.service === undefined ? undefined : requireService(config, args.service);
  const dependents = (name: string) =>
    config.services.filter((s) => s.dependencies.includes(name)).map((s) => s.name);
  const shown =
    focus === undefined
      ? config.services
      : config.services.filter(
          (s) =>
            s.name === focus.name ||
            focus.dependencies.includes(s.name) ||
            s.dependencies.includes(focus.name),
        );
  const lines = shown.map((s) => {
    const parts = [
      `- ${s.name}${s.description ? `: ${s.description}` : ''}`,
      `  depends on: ${s.dependencies.join(', ') || 'nothing configured'}; depended on by: ${dependents(s.name).join(', ') || 'nothing configured'}`,
      `  logs: ${s.logGroups.join(', ') || 'none'}; metrics: ${s.metrics ? `${s.metrics.namespace} ${s.metrics.names.join(', ')}` : 'none'}; deployments: ${s.stacks.join(', ') || 'none'}`,
    ];
    return parts.join('\n');
  });
  const head = focus === undefined ? `${shown.length} services.` : `${focus.name} and its neighbours.`;
  return {
    output: await cap([head, ...lines].join('\n'), config.outputTokenBudget * 4),
    evidence: {
      source: 'config:service-map',
      query: focus === undefined ? 'all services' : focus.name,
      summary: shown
        .map((s) => `${s.name} -> ${s.dependencies.join(',') || '-'}`)
        .join('; ')
        .slice(0, 1000),
    },
  };
}

export async function getIncident(args: GetIncidentArgs, deps: CallDeps): Promise<ToolOutcome> {
  const source = deps.incidents;
  if (source === undefined)
    throw new QueryRefusedError('source_disabled', 'the PagerDuty source is not enabled');
  await deps.reserve();
  const incident = await source.get(args.incidentId);
  const head = [
    `PagerDuty incident ${incident.id}: ${incident.title}`,
    `status ${incident.status}${incident.urgency ? `, urgency ${incident.urgency}` : ''}${incident.service ? `, service ${incident.service}` : ''}, created ${incident.createdAt}${incident.url ? `, ${incident.url}` : ''}`,
  ];
  const log = incident.log.slice(-20).map((e) => `- ${e.at} ${e.type}: ${e.summary}`);
  return {
    output: await cap(
      [...head, ...(log.length > 0 ? ['Log entries:', ...log] : [])].join('\n'),
      deps.config.outputTokenBudget * 4,
    ),
    evidence: {
      source: `${source.name}:incident`,
      query: incident.id,
      summary: `${incident.title} (${incident.status}, created ${incident.createdAt})`.slice(0, 1000),
    },
  };
}
