import { AccountLimitExceededException } from '@aws-sdk/client-codebuild';
import {
  InternalServerError,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ThrottlingException,
} from '@aws-sdk/client-dynamodb';
import { SlackUnavailableError } from '../lambdas/slack/errors.ts';

/**
 * The error names the state machines' Retry and Catch match, taken from the classes that raise
 * them: a Lambda error's name is its class's `name`, an AWS SDK exception's name is its class's,
 * and a direct service integration prefixes the service (`DynamoDB.ThrottlingException`). Only
 * what no class names is written here: the integrations' own errors and AWS's common errors.
 * test/statemachines/task-contracts.test.ts checks every name in every synthesized definition.
 */

/** A class whose instances are the errors a Retry or Catch matches. */
export type ErrorClass = abstract new (...args: never[]) => Error;

/** The name a Retry or Catch matches for errors of this class (the class sets `name` to its own). */
export function errorName(errorClass: ErrorClass): string {
  return errorClass.name;
}

/** The name of a service's exception as its direct integration raises it. */
export function integrationError(service: 'DynamoDB' | 'CodeBuild', errorClass: ErrorClass): string {
  return `${service}.${errorClass.name}`;
}

/**
 * Errors of the integrations and runtimes that no class of ours or of the SDK we use names, as
 * the Step Functions developer guide lists them: the Lambda integration's, the Lambda runtime's
 * own timeout and crash, the StartExecution and CodeBuild integrations' (named after the Java
 * SDK's exceptions).
 */
export const INTEGRATION_ERRORS = {
  lambdaService: 'Lambda.ServiceException',
  lambdaAws: 'Lambda.AWSLambdaException',
  lambdaClient: 'Lambda.SdkClientException',
  lambdaThrottled: 'Lambda.TooManyRequestsException',
  /** The runtime died on the way out of a function that ran to its timeout. */
  lambdaUnknown: 'Lambda.Unknown',
  /** A function that ran to its own timeout (a hung call to Slack or AWS). */
  functionTimedOut: 'Sandbox.Timedout',
  startThrottled: 'StepFunctions.ThrottlingException',
  startLimit: 'StepFunctions.ExecutionLimitExceededException',
  startService: 'StepFunctions.AWSStepFunctionsException',
  startNameTaken: 'StepFunctions.ExecutionAlreadyExistsException',
  codeBuildService: 'CodeBuild.CodeBuildException',
} as const;

/**
 * AWS's common errors, which any service may answer with by code rather than as a modeled
 * exception (the "Common Errors" of every AWS API reference); the SDK names the error after the code.
 */
const AWS_COMMON_ERRORS = { serviceUnavailable: 'ServiceUnavailable' } as const;

/**
 * Errors worth retrying around a task Lambda: of the Lambda service itself, and the transient
 * errors our code lets through (throttling and server errors of DynamoDB and Step Functions
 * inside the function, Slack unreachable or rate-limiting past the client's own retries).
 * Validation and "not found" errors are not here: retrying cannot fix them.
 */
export const LAMBDA_TRANSIENT_ERRORS: readonly string[] = [
  INTEGRATION_ERRORS.lambdaService,
  INTEGRATION_ERRORS.lambdaAws,
  INTEGRATION_ERRORS.lambdaClient,
  INTEGRATION_ERRORS.lambdaThrottled,
  errorName(ProvisionedThroughputExceededException),
  errorName(ThrottlingException),
  errorName(RequestLimitExceeded),
  errorName(InternalServerError),
  AWS_COMMON_ERRORS.serviceUnavailable,
  errorName(SlackUnavailableError),
  // In AWS a function that ran to its own timeout fails the task with `Sandbox.Timedout`, or
  // `Lambda.Unknown` when the runtime died on the way out.
  INTEGRATION_ERRORS.functionTimedOut,
  INTEGRATION_ERRORS.lambdaUnknown,
];

/** Throttling and server errors of the direct DynamoDB integration: safe to retry. */
export const DYNAMODB_TRANSIENT_ERRORS: readonly string[] = [
  integrationError('DynamoDB', ProvisionedThroughputExceededException),
  integrationError('DynamoDB', RequestLimitExceeded),
  integrationError('DynamoDB', ThrottlingException),
  integrationError('DynamoDB', InternalServerError),
];

/** A checks build CodeBuild could not take now: account limits, its own errors. */
export const CODEBUILD_TRANSIENT_ERRORS: readonly string[] = [
  integrationError('CodeBuild', AccountLimitExceededException),
  INTEGRATION_ERRORS.codeBuildService,
];
