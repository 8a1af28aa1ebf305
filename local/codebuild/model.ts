import * as z from 'zod';

/**
 * CodeBuild's request and record shapes as far as the emulator serves them (camelCase, as
 * the JSON protocol sends them; dates as `Date`, sent as epoch seconds).
 */

const EnvironmentVariable = z.object({
  name: z.string().min(1),
  value: z.string(),
  type: z.enum(['PLAINTEXT', 'PARAMETER_STORE', 'SECRETS_MANAGER']).default('PLAINTEXT'),
});
export type EnvironmentVariable = z.infer<typeof EnvironmentVariable>;

export const ProjectSource = z.looseObject({
  type: z.string().min(1),
  location: z.string().optional(),
  buildspec: z.string().optional(),
});

export const CreateProjectInput = z.looseObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9\-_]{1,254}$/, 'invalid project name'),
  source: ProjectSource,
  sourceVersion: z.string().optional(),
  artifacts: z.looseObject({ type: z.string() }),
  environment: z.looseObject({
    type: z.string(),
    image: z.string(),
    computeType: z.string(),
    environmentVariables: z.array(EnvironmentVariable).optional(),
  }),
  serviceRole: z.string().min(1),
  timeoutInMinutes: z.number().int().min(5).max(2160).optional(),
  queuedTimeoutInMinutes: z.number().int().min(5).max(480).optional(),
});
export type CreateProjectInput = z.infer<typeof CreateProjectInput>;

export const StartBuildInput = z.looseObject({
  projectName: z.string().min(1),
  sourceVersion: z.string().min(1).optional(),
  sourceLocationOverride: z.string().min(1).optional(),
  sourceTypeOverride: z.string().min(1).optional(),
  buildspecOverride: z.string().min(1).optional(),
  environmentVariablesOverride: z.array(EnvironmentVariable).optional(),
  timeoutInMinutesOverride: z.number().int().min(5).max(2160).optional(),
  idempotencyToken: z.string().optional(),
});
export type StartBuildInput = z.infer<typeof StartBuildInput>;

export const BatchGetBuildsInput = z.object({ ids: z.array(z.string().min(1)).min(1).max(100) });
export const StopBuildInput = z.object({ id: z.string().min(1) });
export const BatchGetReportsInput = z.object({ reportArns: z.array(z.string().min(1)).min(1).max(100) });
export const DescribeTestCasesInput = z.object({
  reportArn: z.string().min(1),
  nextToken: z.string().optional(),
  maxResults: z.number().int().min(1).max(1000).optional(),
  filter: z
    .object({
      status: z.enum(['SUCCEEDED', 'FAILED', 'ERROR', 'SKIPPED', 'UNKNOWN']).optional(),
      keyword: z.string().optional(),
    })
    .optional(),
});
export const BatchGetProjectsInput = z.object({ names: z.array(z.string().min(1)).min(1).max(100) });

export type BuildStatus = 'IN_PROGRESS' | 'SUCCEEDED' | 'FAILED' | 'FAULT' | 'TIMED_OUT' | 'STOPPED';
export type PhaseType =
  | 'SUBMITTED'
  | 'QUEUED'
  | 'PROVISIONING'
  | 'DOWNLOAD_SOURCE'
  | 'INSTALL'
  | 'PRE_BUILD'
  | 'BUILD'
  | 'POST_BUILD'
  | 'UPLOAD_ARTIFACTS'
  | 'FINALIZING'
  | 'COMPLETED';

export interface PhaseContext {
  statusCode: string;
  message: string;
}

export interface BuildPhase {
  phaseType: PhaseType;
  /** Absent while the phase runs (and on COMPLETED). */
  phaseStatus?: Exclude<BuildStatus, 'IN_PROGRESS'>;
  startTime: Date;
  endTime?: Date;
  durationInSeconds?: number;
  contexts?: PhaseContext[];
}

export interface Project {
  name: string;
  arn: string;
  source: z.infer<typeof ProjectSource>;
  sourceVersion?: string;
  artifacts: { type: string };
  environment: CreateProjectInput['environment'] & { environmentVariables: EnvironmentVariable[] };
  serviceRole: string;
  timeoutInMinutes: number;
  queuedTimeoutInMinutes: number;
  created: Date;
  lastModified: Date;
  /** Builds started so far (buildNumber of the next is this + 1). */
  builds: number;
}

/** A build as BatchGetBuilds returns it. */
export interface Build {
  id: string;
  arn: string;
  buildNumber: number;
  startTime: Date;
  endTime?: Date;
  currentPhase: PhaseType;
  buildStatus: BuildStatus;
  sourceVersion?: string;
  resolvedSourceVersion?: string;
  projectName: string;
  phases: BuildPhase[];
  source: { type: string; location?: string; buildspec?: string };
  secondarySources: [];
  secondarySourceVersions: [];
  artifacts: { location: string };
  secondaryArtifacts: [];
  cache: { type: 'NO_CACHE' };
  environment: Project['environment'] & { privilegedMode: boolean; imagePullCredentialsType: 'CODEBUILD' };
  serviceRole: string;
  logs: {
    groupName: string;
    streamName: string;
    deepLink: string;
    cloudWatchLogsArn: string;
    cloudWatchLogs: { status: 'ENABLED' };
    s3Logs: { status: 'DISABLED'; encryptionDisabled: boolean };
  };
  timeoutInMinutes: number;
  queuedTimeoutInMinutes: number;
  buildComplete: boolean;
  /** The reports of its buildspec's `reports:` groups, once its commands ended. */
  reportArns?: string[];
  initiator: string;
  encryptionKey: string;
}

/** The build statuses a build ends with. */
export const FINAL_STATUSES: readonly BuildStatus[] = [
  'SUCCEEDED',
  'FAILED',
  'FAULT',
  'TIMED_OUT',
  'STOPPED',
];
