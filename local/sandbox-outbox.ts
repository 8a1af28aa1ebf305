import { lambdaContext } from './sandbox-resources.ts';
import { type CloudFormationTemplate, resourcesOfType } from './template.ts';

/**
 * The sandbox's stand-in for the reconciler's schedule, for one of its jobs: posting what a
 * Slack outage kept (lambdas/slack/outbox.ts). In AWS the EventBridge rule runs the whole
 * sweep every few minutes; here the same function is invoked every `everyMs` with
 * `{ outboxOnly: true }`, so a fake Slack outage that ends is followed by its delayed posts
 * within seconds, and no other repair runs behind a test's back.
 */
export function startOutboxSweep(
  template: CloudFormationTemplate,
  handlerOf: (logicalId: string) => Promise<(event: unknown, context: never) => unknown>,
  functions: ReadonlyMap<string, { logicalId: string; timeoutSeconds: number }>,
  log: { warn(message: string, fields?: Record<string, unknown>): void },
  options: { everyMs?: number } = {},
): { stop(): void } {
  const target = scheduledFunction(template);
  if (target === undefined) return { stop() {} };
  // Called directly, not through the sandbox's `invoke`: a sweep every second is no change
  // for the console's feed.
  const invoke = async (logicalId: string, event: unknown) =>
    (await handlerOf(logicalId))(
      event,
      lambdaContext(functions.get(logicalId) ?? { logicalId, timeoutSeconds: 120 }) as never,
    );
  const onError = (error: unknown) => log.warn('the outbox sweep failed', { error });
  let running = false;
  let lastError = '';
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    invoke(target, { outboxOnly: true })
      .then(() => {
        lastError = '';
      })
      .catch((error: unknown) => {
        // Told once per kind of failure, not every second while Slack stays down.
        const said = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        if (said !== lastError) onError(error);
        lastError = said;
      })
      .finally(() => {
        running = false;
      });
  }, options.everyMs ?? 1_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** The logical id of the function a schedule rule targets (the reconciler), if the template has one. */
function scheduledFunction(template: CloudFormationTemplate): string | undefined {
  for (const [, rule] of resourcesOfType(template, 'AWS::Events::Rule')) {
    if (rule.Properties?.ScheduleExpression === undefined) continue;
    const targets = rule.Properties.Targets as { Arn?: { 'Fn::GetAtt'?: [string, string] } }[] | undefined;
    const logicalId = targets?.[0]?.Arn?.['Fn::GetAtt']?.[0];
    if (logicalId !== undefined) return logicalId;
  }
  return undefined;
}
