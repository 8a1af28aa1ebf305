import { spawnSync } from 'node:child_process';
import {
  CloudFormationClient,
  CreateStackCommand,
  DescribeStacksCommand,
  paginateListStackResources,
  type StackResourceSummary,
} from '@aws-sdk/client-cloudformation';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMoto } from '../../local/moto-server.ts';
import { eventually } from '../support/eventually.ts';
import { ALL_OPTIONS_CONFIG } from './all-options.ts';
import {
  assetKeys,
  EMPTY_ZIP,
  forMoto,
  MOTO_REGION,
  type Template,
  TYPES_MOTO_LACKS,
  typesMotoLacks,
} from './moto-rehearsal.ts';
import { templateOf } from './template.ts';

/**
 * A deploy rehearsal: the template of the stack with every option enabled, created by moto's
 * CloudFormation (`moto_server`, an independent implementation of the AWS APIs), as
 * `cdk deploy` would create it in a bootstrapped account: the bootstrap version parameter and
 * the function bundles in the assets bucket. Every resource of a type moto models must reach
 * CREATE_COMPLETE; the types it lacks (TYPES_MOTO_LACKS) are set aside and counted.
 */
const motoInstalled = spawnSync('sh', ['-c', 'command -v moto_server'], { encoding: 'utf8' }).status === 0;
if (!motoInstalled) {
  console.warn(
    'deploy rehearsal: moto_server is not installed (pip install "moto[server]"); the rehearsal steps aside',
  );
}

const credentials = { accessKeyId: 'rehearsal', secretAccessKey: 'rehearsal' };
let moto: Awaited<ReturnType<typeof startMoto>> | undefined;
let synthesized: Template;
let prepared: { template: Template; setAside: string[] };
const resources: StackResourceSummary[] = [];
let stackStatus: string | undefined;
let stackReason: string | undefined;

/** moto's S3 dispatches on the credential scope; it does not check signatures. */
async function putS3(endpoint: string, path: string, body?: Buffer): Promise<void> {
  const response = await fetch(`${endpoint}/${path}`, {
    method: 'PUT',
    headers: {
      authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/20260101/${MOTO_REGION}/s3/aws4_request, SignedHeaders=host, Signature=0`,
      'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
    },
    ...(body === undefined ? {} : { body }),
  });
  if (!response.ok) throw new Error(`S3 PUT ${path}: ${response.status} ${await response.text()}`);
}

beforeAll(async () => {
  if (!motoInstalled) return;
  const started = performance.now();
  // The worker's template of this configuration (test/infra/template.ts), which other files
  // read too: the rehearsal only reads it (forMoto builds a new one).
  synthesized = templateOf({ config: ALL_OPTIONS_CONFIG }).toJSON() as Template;
  const synthMs = performance.now() - started;
  prepared = forMoto(synthesized);
  moto = await startMoto();
  const { endpoint } = moto;
  const clientConfig = { endpoint, region: MOTO_REGION, credentials, maxAttempts: 1 };

  // What `cdk bootstrap` leaves in the account: the version parameter and the assets bucket.
  await new SSMClient(clientConfig).send(
    new PutParameterCommand({ Name: '/cdk-bootstrap/hnb659fds/version', Value: '21', Type: 'String' }),
  );
  const bucket = `cdk-hnb659fds-assets-123456789012-${MOTO_REGION}`;
  await putS3(endpoint, bucket);
  for (const key of assetKeys(prepared.template)) await putS3(endpoint, `${bucket}/${key}`, EMPTY_ZIP);

  const cloudformation = new CloudFormationClient(clientConfig);
  const deployStarted = performance.now();
  await cloudformation.send(
    new CreateStackCommand({
      StackName: 'SlackAgents',
      TemplateBody: JSON.stringify(prepared.template),
      Capabilities: ['CAPABILITY_IAM'],
    }),
  );
  const stack = await eventually(
    async () =>
      (await cloudformation.send(new DescribeStacksCommand({ StackName: 'SlackAgents' }))).Stacks?.[0],
    (settled) => settled?.StackStatus !== undefined && !settled.StackStatus.endsWith('_IN_PROGRESS'),
    'the stack to be created',
    { stallMs: 60_000, intervalMs: 100 },
  );
  stackStatus = stack?.StackStatus;
  stackReason = stack?.StackStatusReason;
  for await (const page of paginateListStackResources(
    { client: cloudformation },
    { StackName: 'SlackAgents' },
  )) {
    resources.push(...(page.StackResourceSummaries ?? []));
  }
  const created = resources.filter((r) => r.ResourceStatus === 'CREATE_COMPLETE').length;
  console.log(
    `deploy rehearsal: ${created}/${Object.keys(prepared.template.Resources).length} resources created, ` +
      `${prepared.setAside.length} set aside (${TYPES_MOTO_LACKS.join(', ')}); ` +
      `synth ${Math.round(synthMs)} ms, create ${Math.round(performance.now() - deployStarted)} ms`,
  );
});

afterAll(() => {
  moto?.process.kill();
});

describe.skipIf(!motoInstalled)('the stack with every option, deployed into moto’s CloudFormation', () => {
  it('completes the stack', () => {
    expect({ stackStatus, stackReason }).toEqual({ stackStatus: 'CREATE_COMPLETE', stackReason: undefined });
  });

  it('creates every resource of a type moto models', () => {
    const expected = Object.keys(prepared.template.Resources).sort();
    expect(expected.length).toBeGreaterThan(150);
    const complete = resources
      .filter((r) => r.ResourceStatus === 'CREATE_COMPLETE')
      .map((r) => r.LogicalResourceId);
    expect(complete.sort()).toEqual(expected);
  });

  it('sets aside only the types moto lacks, as moto itself tells', () => {
    const types = [...new Set(Object.values(synthesized.Resources).map((r) => r.Type))];
    expect(typesMotoLacks(types)).toEqual(TYPES_MOTO_LACKS.filter((t) => types.includes(t)).sort());
    expect(prepared.setAside.length + Object.keys(prepared.template.Resources).length).toBe(
      Object.keys(synthesized.Resources).length,
    );
  });
});
