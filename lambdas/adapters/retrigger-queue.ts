import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { RouterPorts } from '../kernel/route-types.ts';
import { ENV } from '../shared/env.ts';

let sqs: SQSClient | undefined;

/**
 * The Router's hand-over of a repeated trigger (`RouterDeps.retriggered`) to the queue its
 * workflow reads (SQS FIFO): grouped per conversation, deduplicated per triggering event, so a
 * redelivered inbox record is answered once. Without `RETRIGGER_QUEUE_URL` (no workflow takes
 * them) there is none: the kernel's tells no one, and the Router logs the ignore.
 */
export function retriggerDeps(
  env: NodeJS.ProcessEnv = process.env,
): Partial<Pick<RouterPorts, 'retriggered'>> {
  const queueUrl = env[ENV.retriggerQueueUrl];
  if (!queueUrl) return {};
  return {
    retriggered: async (notice) => {
      sqs ??= new SQSClient({ useQueueUrlAsEndpoint: false });
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify(notice),
          MessageGroupId: notice.conversationId,
          MessageDeduplicationId: `${notice.conversationId}:${notice.ts}`
            .replace(/[^A-Za-z0-9_.:-]/g, '_')
            .slice(0, 128),
        }),
      );
      return 'told';
    },
  };
}
