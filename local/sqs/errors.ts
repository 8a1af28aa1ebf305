/**
 * The SQS errors the emulator raises, by their JSON-protocol shape name. Each carries what
 * the wire needs: the `__type` (`com.amazonaws.sqs#<code>`), the legacy query error code
 * that SQS also sends in `x-amzn-query-error` (the SDK is "awsQueryCompatible" and resolves
 * either), and the HTTP status from the service model.
 */
const SQS_ERRORS = {
  QueueDoesNotExist: { queryCode: 'AWS.SimpleQueueService.NonExistentQueue', status: 400 },
  QueueNameExists: { queryCode: 'QueueAlreadyExists', status: 400 },
  InvalidParameterValue: { queryCode: 'InvalidParameterValue', status: 400 },
  MissingParameter: { queryCode: 'MissingParameter', status: 400 },
  InvalidAttributeName: { queryCode: 'InvalidAttributeName', status: 400 },
  InvalidAttributeValue: { queryCode: 'InvalidAttributeValue', status: 400 },
  InvalidMessageContents: { queryCode: 'InvalidMessageContents', status: 400 },
  ReceiptHandleIsInvalid: { queryCode: 'ReceiptHandleIsInvalid', status: 404 },
  MessageNotInflight: { queryCode: 'AWS.SimpleQueueService.MessageNotInflight', status: 400 },
  EmptyBatchRequest: { queryCode: 'AWS.SimpleQueueService.EmptyBatchRequest', status: 400 },
  TooManyEntriesInBatchRequest: {
    queryCode: 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
    status: 400,
  },
  BatchEntryIdsNotDistinct: { queryCode: 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct', status: 400 },
  InvalidBatchEntryId: { queryCode: 'AWS.SimpleQueueService.InvalidBatchEntryId', status: 400 },
  BatchRequestTooLong: { queryCode: 'AWS.SimpleQueueService.BatchRequestTooLong', status: 400 },
  UnsupportedOperation: { queryCode: 'AWS.SimpleQueueService.UnsupportedOperation', status: 400 },
  SerializationException: { queryCode: 'SerializationException', status: 400 },
} as const;

export type SqsErrorCode = keyof typeof SQS_ERRORS;

export class SqsError extends Error {
  /** The error's shape name, e.g. `QueueDoesNotExist`: what the SDK exposes as `err.name`. */
  override readonly name: SqsErrorCode;
  readonly queryCode: string;
  readonly status: number;

  constructor(code: SqsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = code;
    this.queryCode = SQS_ERRORS[code].queryCode;
    this.status = SQS_ERRORS[code].status;
  }
}

export function queueDoesNotExist(): SqsError {
  return new SqsError('QueueDoesNotExist', 'The specified queue does not exist.');
}

export function missingParameter(parameter: string): SqsError {
  return new SqsError('MissingParameter', `The request must contain the parameter ${parameter}.`);
}

export function invalidParameter(parameter: string, value: unknown, reason: string): SqsError {
  return new SqsError(
    'InvalidParameterValue',
    `Value ${JSON.stringify(value)} for parameter ${parameter} is invalid. Reason: ${reason}`,
  );
}
