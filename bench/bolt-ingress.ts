import { App, AwsLambdaReceiver } from '@slack/bolt';

/**
 * The comparison point for `bench/ingress.ts`: the same door built the usual way, with Slack
 * Bolt's `AwsLambdaReceiver`. It verifies the signature and acks a message event with a
 * listener that does nothing. `botId` and `botUserId` are given so Bolt never calls
 * `auth.test` (no network here, and none in our ingress either).
 */
const receiver = new AwsLambdaReceiver({ signingSecret: process.env.SLACK_SIGNING_SECRET ?? '' });

const app = new App({
  token: process.env.SLACK_BOT_TOKEN ?? 'xoxb-bench',
  botId: 'B0BENCH',
  botUserId: process.env.SLACK_BOT_USER_ID ?? 'UBOTBENCH',
  tokenVerificationEnabled: false,
  receiver,
});

app.event('message', async () => {});

const boltHandler = receiver.toHandler();

export async function handler(event: Parameters<typeof boltHandler>[0], context?: unknown) {
  return boltHandler(event, context);
}
