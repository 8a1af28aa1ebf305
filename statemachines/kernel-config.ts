import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { AgentLimits } from '../lambdas/agents/limits.ts';
import type { ModelPrices } from '../lambdas/agents/pricing.ts';
import type { ProtectedPathsSettings } from '../lambdas/changes/protected-paths.ts';
import type { ReconcilerSettings } from '../lambdas/kernel/reconcile.ts';
import type { McpSettings } from '../lambdas/mcp/config.ts';
import type { RedactionSettings } from '../lambdas/redaction/config.ts';

/**
 * What the stack hands every workflow module besides its own settings: the kernel's
 * configuration (`build`, `environment`, `check`), and what `provision` may use of the stack.
 */

/** The stack configuration the kernel defines, which every module may read (infra/config.ts validates it). */
export interface KernelConfig {
  /** Slack channel ids by the name workflows use for them (their defaults come from the modules). */
  readonly channels: Readonly<Record<string, string | undefined>>;
  /** The bot's Slack user id; absent: read from Slack's `auth.test` at run time (once per cold start). */
  readonly botUserId?: string | undefined;
  /** The offline sandbox's configuration: its fake workspace ids are allowed; never deployed. */
  readonly sandbox?: boolean;
  /** How long a workflow waits for the person who started it. */
  readonly reporterWaitSeconds: number;
  /** How long a workflow waits for developers. */
  readonly developerWaitSeconds: number;
  readonly model: { readonly provider: string; readonly id: string };
  /** Model prices (USD per million tokens) over the defaults of lambdas/agents/pricing.ts. */
  readonly modelPrices: ModelPrices;
  readonly retentionDays: number;
  readonly logRetentionDays: number;
  readonly inboxMaxReceiveCount: number;
  /** The ingress function's reserved concurrency; null reserves none. */
  readonly ingressReservedConcurrency: number | null;
  /** CloudWatch alarms (names, name prefixes) whose state changes reach the ingress. */
  readonly alarms: { readonly names: readonly string[]; readonly namePrefixes: readonly string[] };
  /** The bounds of every agent loop. */
  readonly agentLimits: AgentLimits;
  /** What reaches prompts of text from people with no role in a workflow (lambdas/kernel/people-text.ts). */
  readonly untrustedText: 'label' | 'omit';
  /** The redaction layer's personal data classes and allow list (lambdas/redaction/config.ts). */
  readonly redaction: RedactionSettings;
  /** MCP servers as the agents' toolsets (docs/mcp.md). */
  readonly mcp: McpSettings;
  /** Bedrock's guardrail applied to every model call, with `model.provider: bedrock`. */
  readonly bedrock: { readonly guardrail?: { readonly id: string; readonly version: string } | undefined };
  /** The sweep for stuck conversations. */
  readonly reconciler: ReconcilerSettings & { readonly everyMinutes: number };
  /** GitHub's REST API base URL, for workflows that work on a repository, and the login a token acts as. */
  readonly github: { readonly baseUrl: string; readonly login?: string | undefined };
  /** Who holds each configured role: Slack user groups and users (defaults from the modules). */
  readonly people: Readonly<
    Record<string, { readonly groups: readonly string[]; readonly users: readonly string[] }>
  >;
  /** Who may decide what: decision kind -> the roles whose holders may (defaults from the modules). */
  readonly approvals: Readonly<Record<string, readonly string[]>>;
  /**
   * The paths whose change waits for an approver or is refused, for every workflow that writes
   * code (lambdas/changes/protected-paths.ts; absent: the defaults).
   */
  readonly protectedPaths?: ProtectedPathsSettings;
}

/** A secret holding credentials a third party issues (the operator pastes them in after deploying). */
export interface ThirdPartySecretRequest {
  /** What the secret holds, for the console. */
  readonly description: string;
  /** Fields the operator fills in, with their placeholder text. */
  readonly placeholders: Record<string, string>;
  /** The field that gets a random value until the operator replaces it. */
  readonly generatedField: string;
  /** Where the credential is issued and rotated. */
  readonly issuedBy: string;
}

/** What a module's `provision` may use of the stack beyond its scope. */
export interface ProvisionContext {
  readonly config: KernelConfig;
  /** The stack's secret `id` for third-party credentials: created once, its ARN an output. */
  thirdPartySecret(id: string, request: ThirdPartySecretRequest): Pick<ISecret, 'secretArn' | 'grantRead'>;
  /**
   * Lets `fn` call the configured model, as `access.modelSecret` does, for a function whose
   * model calls depend on its settings (query_logs' optional template review).
   */
  grantModel?(fn: LambdaFunction): void;
}
