import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import { CodeBuildApiError } from './errors.ts';
import {
  BatchGetBuildsInput,
  BatchGetProjectsInput,
  BatchGetReportsInput,
  CreateProjectInput,
  DescribeTestCasesInput,
  StartBuildInput,
  StopBuildInput,
} from './model.ts';
import type { CodeBuildService } from './service.ts';

/**
 * CodeBuild's JSON protocol (awsJson1_1: `POST /` with `X-Amz-Target: CodeBuild_20161006.<Operation>`,
 * timestamps as epoch seconds) for the operations the project and its tests call, so
 * `@aws-sdk/client-codebuild` works through `AWS_ENDPOINT_URL_CODEBUILD`.
 */

export const CODEBUILD_TARGET_PREFIX = 'CodeBuild_20161006.';

export function createCodeBuildApiHandler(service: CodeBuildService) {
  const operations: Record<string, (body: unknown) => unknown> = {
    CreateProject: (body) => ({ project: service.createProject(parse(CreateProjectInput, body)) }),
    BatchGetProjects: (body) => service.batchGetProjects(parse(BatchGetProjectsInput, body).names),
    StartBuild: (body) => ({ build: service.startBuild(parse(StartBuildInput, body)) }),
    BatchGetBuilds: (body) => service.batchGetBuilds(parse(BatchGetBuildsInput, body).ids),
    StopBuild: (body) => ({ build: service.stopBuild(parse(StopBuildInput, body).id) }),
    BatchGetReports: (body) => service.reports.batchGetReports(parse(BatchGetReportsInput, body).reportArns),
    DescribeTestCases: (body) => service.reports.describeTestCases(parse(DescribeTestCasesInput, body)),
  };

  return async (req: IncomingMessage, res: ServerResponse, body: string): Promise<void> => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const operation = operations[target.slice(CODEBUILD_TARGET_PREFIX.length)];
    try {
      if (!target.startsWith(CODEBUILD_TARGET_PREFIX) || operation === undefined) {
        throw new CodeBuildApiError('UnknownOperationException', `Unknown operation ${target}`);
      }
      let input: unknown;
      try {
        input = body === '' ? {} : JSON.parse(body);
      } catch (cause) {
        throw new CodeBuildApiError('InvalidInputException', 'The request body is not JSON', { cause });
      }
      send(res, 200, toWire(operation(input)));
    } catch (error) {
      if (!(error instanceof CodeBuildApiError)) throw error;
      send(res, 400, { __type: error.code, message: error.message });
    }
  };
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new CodeBuildApiError('InvalidInputException', z.prettifyError(parsed.error));
  return parsed.data;
}

function send(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(value));
}

/** Dates as epoch seconds, as the JSON protocol sends timestamps; everything else as is. */
export function toWire(value: unknown): unknown {
  if (value instanceof Date) return value.getTime() / 1000;
  if (Array.isArray(value)) return value.map(toWire);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).flatMap(([key, inner]) =>
        // Internal bookkeeping of a project, not part of the API's Project.
        key === 'builds' && typeof inner === 'number' ? [] : [[key, toWire(inner)]],
      ),
    );
  }
  return value;
}
