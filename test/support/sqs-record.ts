import type { SQSRecord } from 'aws-lambda';

/** A FIFO queue record as Lambda's SQS event source hands it over: message `id` in group `group`. */
export function fifoRecord(id: string, group: string, body: string = JSON.stringify({ id })): SQSRecord {
  return {
    messageId: id,
    receiptHandle: `rh-${id}`,
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '1700000000000',
      SenderId: 'x',
      ApproximateFirstReceiveTimestamp: '1700000000000',
      MessageGroupId: group,
      MessageDeduplicationId: id,
      SequenceNumber: '1',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:inbox.fifo',
    awsRegion: 'us-east-1',
  };
}
