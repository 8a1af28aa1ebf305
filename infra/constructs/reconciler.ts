import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import { ENV } from '../../lambdas/shared/env.ts';
import { KERNEL_FUNCTIONS } from '../../statemachines/kernel-functions.ts';
import type { SlackAgentsConfig } from '../config.ts';
import { createKernelFunction, type KernelFunction, type KernelFunctionProps } from './kernel-function.ts';

/**
 * The Reconciler function and the EventBridge schedule that runs it: every
 * `reconciler.everyMinutes`, a sweep for conversations the event path left stuck. The caller
 * grants it the table, the Slack secret, starting the workflows and completing their tasks.
 */
export function createReconciler(
  scope: Construct,
  props: KernelFunctionProps,
  config: SlackAgentsConfig,
): KernelFunction {
  const { everyMinutes, ...settings } = config.reconciler;
  const fn = createKernelFunction(scope, 'Reconciler', KERNEL_FUNCTIONS.Reconciler, {
    ...props,
    environment: { ...props.environment, [ENV.reconciler]: JSON.stringify(settings) },
  });
  new Rule(scope, 'ReconcilerSchedule', {
    description: 'Sweeps for stuck conversations: starts, wakes, or fails them visibly',
    schedule: Schedule.rate(Duration.minutes(everyMinutes)),
    // One sweep at a time is plenty: a failed one is simply the next one's work.
    targets: [new LambdaFunction(fn, { retryAttempts: 0 })],
  });
  return fn;
}
