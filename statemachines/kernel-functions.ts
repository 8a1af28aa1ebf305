/**
 * The Lambda functions: what a function spec says (read by the CDK stack, which bundles and
 * deploys each one, and by the sandbox, which imports the same entry files and runs their
 * `handler` in process), the kernel's own functions, and the specs workflows' functions
 * share. A workflow module declares its own functions with these (statemachines/<workflow>).
 */

/** What a function may do beyond writing its own log group; the stack grants exactly this. */
export interface FunctionAccess<F extends string = string> {
  /** The conversations table. @default - none */
  readonly table?: 'read' | 'read_write';
  /** Read the Slack credentials secret. @default false */
  readonly slackSecret?: boolean;
  /** Read the model credentials secret. @default false */
  readonly modelSecret?: boolean;
  /**
   * The tools it calls: tool name -> the key of the module's function serving it. The stack
   * lets it invoke those functions and gives it TOOL_FUNCTIONS (tool name -> function name).
   * @default - none
   */
  readonly tools?: Readonly<Record<string, F>>;
  /**
   * Read the GitHub credentials secret (created by the stack when a function asks for it);
   * the function gets GITHUB_SECRET_ARN and GITHUB_BASE_URL. @default false
   */
  readonly githubSecret?: boolean;
  /** Read CodeBuild's build logs (`logs:GetLogEvents` on `/aws/codebuild/*`). @default false */
  readonly buildLogs?: boolean;
}

/** One Lambda function: its entry (a file exporting `handler`), limits and access. */
export interface FunctionSpec<F extends string = string> {
  /** The entry file, from the repository root. */
  readonly entry: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  /** @default - nothing beyond its log group */
  readonly access?: FunctionAccess<F>;
  /**
   * `agent_turn`: it runs agent turns (the sandbox's console shows "thinking" meanwhile).
   * @default - a plain function
   */
  readonly kind?: 'agent_turn';
  /**
   * Files whose `part` export the entry's `compose` export takes, in this order, to make the
   * handler (the Router with the modules' additions): the bundle's entry is that composition,
   * and the sandbox composes it the same way in process.
   * @default - none: the entry's `handler` as it is
   */
  readonly parts?: readonly string[];
}

/** The kernel's functions, which know no workflow; the stack wires each itself. */
export const KERNEL_FUNCTIONS = {
  Ingress: { entry: 'lambdas/handlers/ingress.ts', timeoutSeconds: 10, memoryMb: 256 },
  Router: { entry: 'lambdas/handlers/router.ts', timeoutSeconds: 30, memoryMb: 512 },
  RegisterWait: { entry: 'lambdas/handlers/register-wait.ts', timeoutSeconds: 30, memoryMb: 256 },
  Drain: { entry: 'lambdas/handlers/drain.ts', timeoutSeconds: 30, memoryMb: 256 },
  /** Texts and blocks only: a workflow with templates declares its own (`slackPostFunction`). */
  SlackPost: { entry: 'lambdas/handlers/slack-post.ts', timeoutSeconds: 30, memoryMb: 256 },
  /** The approval wait's park and expire steps (statemachines/approval-wait.ts). */
  ApprovalWait: { entry: 'lambdas/handlers/approval-wait.ts', timeoutSeconds: 30, memoryMb: 256 },
  /** The scheduled sweep for stuck conversations: starts, wakes, or fails them visibly. */
  Reconciler: { entry: 'lambdas/handlers/reconciler.ts', timeoutSeconds: 120, memoryMb: 256 },
} as const satisfies Record<string, FunctionSpec>;

export type KernelFunctionId = keyof typeof KERNEL_FUNCTIONS;

/** A kernel-like task function's timeout (RegisterWait, Drain, SlackPost, a workflow's SlackPost). */
export const TASK_FUNCTION_TIMEOUT_SECONDS = 30;

/** An agent turn's function timeout: the turn's own time budget ends 30 s before it. */
export const AGENT_TURN_TIMEOUT_SECONDS = 300;

/**
 * A workflow's AgentTurn: an entry calling `createAgentTurnHandler` with its profiles
 * (lambdas/handlers/agent-turn.ts), with the table (transcripts, ledger), the model key, its
 * tools, and the Slack token (its live progress in the thread).
 */
export function agentTurnFunction<F extends string>(
  entry: string,
  tools: Readonly<Record<string, F>> = {},
): FunctionSpec<F> {
  return {
    entry,
    timeoutSeconds: AGENT_TURN_TIMEOUT_SECONDS,
    memoryMb: 1024,
    kind: 'agent_turn',
    access: { table: 'read_write', modelSecret: true, slackSecret: true, tools },
  };
}

/** A workflow's SlackPost: an entry calling `createSlackPostHandler` with its templates. */
export function slackPostFunction(entry: string): FunctionSpec<never> {
  return {
    entry,
    timeoutSeconds: TASK_FUNCTION_TIMEOUT_SECONDS,
    memoryMb: 256,
    access: { table: 'read_write', slackSecret: true },
  };
}

/** The agents' conversation-history tool (`get_bug_conversations`), for a workflow whose agents use it. */
export const CONVERSATION_HISTORY_TOOL_FUNCTION: FunctionSpec<never> = {
  entry: 'lambdas/handlers/conversation-history-tool.ts',
  timeoutSeconds: 30,
  memoryMb: 256,
  access: { table: 'read' },
};
