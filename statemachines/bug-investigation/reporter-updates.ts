import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { catchFailure, describeDuration } from '../kernel.ts';
import { slackPost } from '../slack-post.ts';
import { BUG_STATE } from './bug-state.ts';
import { BUG_INVESTIGATION_STATES as S, SUMMARY_POST, BUG_INVESTIGATION_TEXTS as T } from './states.ts';

/**
 * What the reporter and the developers hear of each other
 * (`post_investigation_results`): the reporter's thread is told when the findings go to the
 * developers (with a link to them), and how the report ended (resolved, or closed, with the
 * conversation's estimated cost); the developers' findings thread is told when the reporter
 * closed it. The fix path tells both threads about a pull request itself (fix-path.ts).
 * A post that fails after its retries goes on to the state it leads to: none ends a conversation.
 */

export interface ReporterUpdateProps {
  readonly slackPostFn: IFunction;
  /** The reporter's thread: `$.channel` and `$.threadTs`. */
  readonly reporterThread: { readonly channel: string; readonly threadTs: string };
}

/** A cosmetic post that goes on to `next` whether or not Slack took it. */
function notice(
  scope: Construct,
  stateName: string,
  props: Parameters<typeof slackPost>[2],
  next: sfn.IChainable,
): sfn.TaskStateBase {
  const post = slackPost(scope, stateName, { essential: false, ...props });
  catchFailure(post, next);
  post.next(next);
  return post;
}

/**
 * After the first findings post (`$.threads.summary`): the reporter hears that the findings
 * went to the developers, with the message's permalink. Returns the state to chain after the post.
 */
export function tellFindingsPosted(
  scope: Construct,
  props: ReporterUpdateProps & { readonly next: sfn.IChainable },
): sfn.TaskStateBase {
  return notice(
    scope,
    S.tellFindingsPosted,
    {
      slackPostFn: props.slackPostFn,
      ...props.reporterThread,
      template: {
        name: 'bug_findings_posted',
        data: { channel: sfn.JsonPath.stringAt(SUMMARY_POST.at('channel')) },
      },
      permalinkOf: {
        channel: sfn.JsonPath.stringAt(SUMMARY_POST.at('channel')),
        ts: sfn.JsonPath.stringAt(SUMMARY_POST.at('ts')),
      },
    },
    props.next,
  );
}

/**
 * The reporter's last word when the bug ends resolved, with the conversation's estimated
 * cost: `concluded` when the agent resolved it, `noFollowUp` when the developers did not
 * answer within `developerWaitSeconds`. Both go on to `markResolved`.
 */
export function tellResolved(
  scope: Construct,
  props: ReporterUpdateProps & {
    readonly developerWaitSeconds: number;
    readonly markResolved: sfn.IChainable;
  },
): { concluded: sfn.TaskStateBase; noFollowUp: sfn.TaskStateBase } {
  const post = (stateName: string, text: string) =>
    notice(
      scope,
      stateName,
      { slackPostFn: props.slackPostFn, ...props.reporterThread, text, withCost: true },
      props.markResolved,
    );
  return {
    concluded: post(S.tellResolved, T.resolved),
    noFollowUp: post(S.tellResolvedNoFollowUp, resolvedNoFollowUpText(props.developerWaitSeconds)),
  };
}

/** What the reporter reads when the developers asked nothing more within the wait. */
export function resolvedNoFollowUpText(waitSeconds: number): string {
  return `:white_check_mark: The developers had no further questions about the findings within ${describeDuration(waitSeconds)}, so I've marked this report resolved. If it happens again, post a new report.`;
}

/**
 * The reporter's close: acknowledged in their thread with the conversation's estimated cost,
 * then announced in the developers' findings thread when there is one. Returns the first
 * state; all paths go on to `markResolved`.
 */
export function acknowledgeClose(
  scope: Construct,
  props: ReporterUpdateProps & { readonly markResolved: sfn.IChainable },
): sfn.TaskStateBase {
  const announce = notice(
    scope,
    S.announceClose,
    {
      slackPostFn: props.slackPostFn,
      channel: sfn.JsonPath.stringAt(SUMMARY_POST.at('channel')),
      threadTs: sfn.JsonPath.stringAt(SUMMARY_POST.at('threadTs')),
      text: sfn.JsonPath.format(T.closedForDevelopers, sfn.JsonPath.stringAt(BUG_STATE.at('ownerId'))),
    },
    props.markResolved,
  );
  const developersToTell = sfn.Choice.jsonPath(scope, S.developersToTell)
    .when(sfn.Condition.isPresent(SUMMARY_POST.path), announce)
    .otherwise(props.markResolved);
  // The reporter asked to close: close even if the acknowledgement cannot be posted.
  return notice(
    scope,
    S.acknowledgeClose,
    {
      slackPostFn: props.slackPostFn,
      ...props.reporterThread,
      text: T.acknowledgeClose,
      withCost: true,
      // the reporter must see it (Slack outages are waited out).
      essential: true,
    },
    developersToTell,
  );
}
