import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { DynamoDailySpend } from '../adapters/dynamo-daily-spend.ts';
import { getSlackSecret } from '../adapters/secrets.ts';
import { agentLimitsFrom } from '../agents/limits.ts';
import {
  answerConversations,
  type NamedConversationLookup,
} from '../feedback/adapters/answer-conversations.ts';
import { DynamoFeedbackStore } from '../feedback/adapters/dynamo-feedback-store.ts';
import { createSlackFeedback } from '../feedback/adapters/slack-feedback.ts';
import type { FeedbackDeps } from '../feedback/ports.ts';
import { openReasonForm, recordFeedbackPress, recordFeedbackReason } from '../feedback/record-feedback.ts';
import { DynamoHomeSource } from '../home/adapters/dynamo-home-source.ts';
import { createSlackHome } from '../home/adapters/slack-home.ts';
import { startAssistantThread } from '../home/assistant.ts';
import type { HomeCommand } from '../home/home-view.ts';
import { type HomeDeps, publishHome } from '../home/publish-home.ts';
import type { InboxSurface, SurfaceOutcome } from '../kernel/inbox-surface.ts';
import { Approvals } from '../kernel/people.ts';
import { systemClock } from '../kernel/ports.ts';
import { ENV, requireEnv } from '../shared/env.ts';
import type { createLogger } from '../shared/logger.ts';
import { AnswerKind, type AnswerKindLabels } from '../slack/templates/feedback.ts';
import { peopleDirectory } from './people-directory.ts';
import { kernelDeps, workflowRegistrations } from './wiring.ts';

/** Counts a metric of the surfaces (the Router's EMF metrics). */
export type CountMetric = (name: string) => void;

export interface SurfaceWiring {
  logger: Pick<ReturnType<typeof createLogger>, 'warn'>;
  count: CountMetric;
  /** Lookups of answers the kernel does not record by thread (a workflow's Router part adds one). */
  namedConversations?: readonly NamedConversationLookup[];
}

/**
 * The Router's entry for Slack's app surfaces (kernel/inbox-surface.ts): feedback presses and
 * reasons, the App Home, and assistant threads, each to its module. Built once per instance.
 */
export function createSurfaceRouter(
  wiring: SurfaceWiring,
): (surface: InboxSurface) => Promise<SurfaceOutcome> {
  let built: Promise<{ feedback: FeedbackDeps; home: HomeDeps }> | undefined;
  const deps = () => {
    built ??= build(wiring).catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    return built;
  };
  return async (surface) => {
    const { feedback, home } = await deps();
    switch (surface.surface) {
      case 'feedback_press':
        return recordFeedbackPress(surface, feedback);
      case 'feedback_reason_request':
        return openReasonForm(surface, feedback);
      case 'feedback_reason':
        return recordFeedbackReason(surface, feedback);
      case 'home_opened':
        return publishHome(surface, home);
      case 'assistant_thread_started':
        return startAssistantThread(surface, home.slack);
    }
  };
}

/** The answer kinds the stack declared (ANSWER_KINDS); none when unset. */
function answerKindLabels(raw: string | undefined): AnswerKindLabels {
  return z.record(AnswerKind, z.string()).parse(raw === undefined || raw === '' ? {} : JSON.parse(raw));
}

async function build(wiring: SurfaceWiring): Promise<{ feedback: FeedbackDeps; home: HomeDeps }> {
  const { botToken } = await getSlackSecret();
  const slackApiUrl = process.env[ENV.slackApiUrl];
  const slack = { token: botToken, ...(slackApiUrl ? { slackApiUrl } : {}) };
  const client = new DynamoDBClient({});
  const tableName = requireEnv(ENV.tableName);
  const retentionDays = Number(process.env[ENV.retentionDays] ?? 90);
  const { store } = kernelDeps();
  const spend = new DynamoDailySpend({ client, tableName, retentionDays });
  const rawApprovals = process.env[ENV.approvals];
  return {
    feedback: {
      answerKinds: answerKindLabels(process.env[ENV.answerKinds]),
      store: new DynamoFeedbackStore({ client, tableName, retentionDays }),
      conversations: answerConversations(store, wiring.namedConversations ?? []),
      slack: createSlackFeedback(slack),
      clock: systemClock,
      count: wiring.count,
      log: (message, detail) => wiring.logger.warn(message, detail),
    },
    home: {
      source: new DynamoHomeSource({ client, tableName, store, spentOn: (day) => spend.spentOn(day) }),
      slack: createSlackHome(slack),
      approvals: Approvals.parse(
        rawApprovals === undefined || rawApprovals === '' ? {} : JSON.parse(rawApprovals),
      ),
      people: await peopleDirectory(),
      ceilingUsd: agentLimitsFrom(process.env[ENV.agentLimits]).maxDailyCostUsd,
      commands: slashCommands(),
      clock: systemClock,
    },
  };
}

/** The slash commands of the registered workflows, for the Home's help. */
function slashCommands(): HomeCommand[] {
  return workflowRegistrations().flatMap((registration) =>
    registration.triggers.flatMap((trigger): HomeCommand[] =>
      trigger.type === 'slash_command'
        ? [
            {
              command: trigger.command,
              ...(trigger.description === undefined ? {} : { description: trigger.description }),
              ...(trigger.usageHint === undefined ? {} : { usageHint: trigger.usageHint }),
            },
          ]
        : [],
    ),
  );
}
