/**
 * The stack's Lambda functions: one list read by the CDK stack (which bundles and deploys
 * them) and by the sandbox (which imports the same entry files and runs their `handler`
 * in process, mapping each Task state to the function it names).
 */
export const FUNCTIONS = {
  Ingress: { entry: 'lambdas/handlers/ingress.ts', timeoutSeconds: 10, memoryMb: 256 },
  Router: { entry: 'lambdas/handlers/router.ts', timeoutSeconds: 30, memoryMb: 512 },
  RegisterWait: { entry: 'lambdas/handlers/register-wait.ts', timeoutSeconds: 30, memoryMb: 256 },
  Drain: { entry: 'lambdas/handlers/drain.ts', timeoutSeconds: 30, memoryMb: 256 },
  SlackPost: { entry: 'lambdas/handlers/slack-post.ts', timeoutSeconds: 30, memoryMb: 256 },
  /** One agent turn: the model's tool loop, bounded by a time budget below this timeout. */
  AgentTurn: { entry: 'lambdas/handlers/agent-turn.ts', timeoutSeconds: 300, memoryMb: 1024 },
  /** The agents' conversation-history tool (`get_bug_conversations`). */
  ConversationHistoryTool: {
    entry: 'lambdas/handlers/conversation-history-tool.ts',
    timeoutSeconds: 30,
    memoryMb: 256,
  },
  /**
   * Channel conversations' responder: decides and answers one channel message (a model call,
   * the judge's too, with their retries), one channel's messages in order.
   */
  ChannelResponder: {
    entry: 'lambdas/workflows/channel-conversations/handlers/channel-responder.ts',
    timeoutSeconds: 120,
    memoryMb: 512,
  },
  /** SLA tracking: has a developer answered since the escalation? */
  SlaCheck: {
    entry: 'lambdas/workflows/bug-investigation/handlers/sla-check.ts',
    timeoutSeconds: 30,
    memoryMb: 256,
  },
} as const satisfies Record<string, { entry: string; timeoutSeconds: number; memoryMb: number }>;

export type FunctionId = keyof typeof FUNCTIONS;
