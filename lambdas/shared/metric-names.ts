/**
 * The custom CloudWatch metrics the functions emit (Powertools Metrics, embedded metric
 * format) and the stack's alarms and dashboard read (infra/constructs/monitoring.ts): one
 * list, so the two cannot drift apart.
 */
export const METRICS_NAMESPACE = 'SlackAgents';

/** The `service` dimension of the agents' metrics, whichever function emits them. */
export const AGENT_METRICS_SERVICE = 'agents';

export const AGENT_METRIC = {
  /** One model API call that succeeded: its latency in milliseconds (retries included). */
  modelLatency: 'ModelLatency',
  /** A model API call that failed after the client's retries (not one aborted at the turn deadline). */
  modelErrors: 'ModelErrors',
  /** An agent turn that ended in `escalate` because it failed (model failure, malformed answers). */
  agentTurnsFailed: 'AgentTurnsFailed',
} as const;
