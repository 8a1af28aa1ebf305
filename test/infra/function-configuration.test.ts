import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { environmentSizes, LAMBDA_ENVIRONMENT_LIMIT } from '../../infra/limits.ts';
import { buildStack } from '../../infra/synth.ts';
import { applyConfigFile, CONFIG_FILE_DIR, CONFIG_FILE_VARIABLE } from '../../lambdas/shared/config-file.ts';
import { LARGE_CONFIG } from '../support/large-config.ts';
import { functionResource, resourcesOfType, variablesOf } from './template.ts';

/** The large configuration with its lists emptied: the same functions, a fraction of the configuration. */
const SMALL_CONFIG = {
  ...LARGE_CONFIG,
  people: {
    developer: { groups: ['S070000001'] },
    on_call: { groups: ['S070000002'] },
    incident_approver: { groups: ['S070000003'] },
  },
  alarms: { names: [], namePrefixes: ['service-01-'] },
  incidentInvestigation: {
    services: [{ name: 'service-01', alarmPrefixes: ['service-01-'] }],
    runbooks: [],
    skills: [{ ...LARGE_CONFIG.incidentInvestigation.skills[0], name: 'restart-service-01' }],
    telemetry: {
      ...LARGE_CONFIG.incidentInvestigation.telemetry,
      services: LARGE_CONFIG.incidentInvestigation.telemetry.services.slice(0, 1),
    },
  },
};

let large: { template: Template; raw: Record<string, unknown>; assembly: string };
let small: Record<string, unknown>;

beforeAll(() => {
  const built = buildStack({ config: LARGE_CONFIG, sandbox: false });
  const assembly = built.app.synth();
  const raw = assembly.getStackArtifact(built.stack.artifactId).template as Record<string, unknown>;
  large = { template: Template.fromJSON(raw), raw, assembly: assembly.directory };
  const other = buildStack({ config: SMALL_CONFIG, sandbox: false });
  small = other.app.synth().getStackArtifact(other.stack.artifactId).template as Record<string, unknown>;
});

describe('configuration beyond the 4 KB environment', () => {
  it('keeps every function environment under 4 KB, at the longest its deploy-time values can be', () => {
    const sizes = environmentSizes(large.raw);
    expect(sizes.size).toBeGreaterThan(25);
    for (const [id, size] of sizes) expect(size, id).toBeLessThan(LAMBDA_ENVIRONMENT_LIMIT);
  });

  it('keeps no synth-time value in any environment but the configuration file path', () => {
    for (const [id, resource] of Object.entries(resourcesOfType(large.template, 'AWS::Lambda::Function'))) {
      const variables = (resource.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      const literal = Object.entries(variables).filter(([, value]) => typeof value === 'string');
      expect(literal, id).toEqual([
        [CONFIG_FILE_VARIABLE, expect.stringMatching(/^\/opt\/slack-agents\/[0-9a-f]{16}\.json$/)],
      ]);
    }
  });

  it('gives each function the same environment size for 30 services and 50 people as for one of each', () => {
    expect(environmentSizes(large.raw)).toEqual(environmentSizes(small));
  });

  it('ships the configuration files in the layer every function has, as the metadata says', () => {
    const [layerId, layer] =
      Object.entries(resourcesOfType(large.template, 'AWS::Lambda::LayerVersion'))[0] ?? [];
    expect(layerId).toBeDefined();
    for (const [id, resource] of Object.entries(resourcesOfType(large.template, 'AWS::Lambda::Function'))) {
      expect(resource.Properties.Layers, id).toContainEqual({ Ref: layerId });
    }
    // The staged asset is what Lambda extracts under /opt: each file equals the metadata's.
    const key = (layer?.Properties.Content as { S3Key: string } | undefined)?.S3Key ?? '';
    const staged = join(large.assembly, `asset.${key.replace(/\.zip$/, '')}`, 'slack-agents');
    const files = layer?.Metadata?.['slack-agents:config-files'] as Record<string, Record<string, string>>;
    for (const [file, variables] of Object.entries(files)) {
      expect(JSON.parse(readFileSync(join(staged, file), 'utf8'))).toEqual(variables);
    }
    expect(Object.keys(files).length).toBeGreaterThan(1);
  });

  it('holds what grows with the configuration: triggers, people, telemetry services, runbooks', () => {
    const router = variablesOf(large.template, functionResource(large.template, 'Router')[1]);
    expect(JSON.parse(String(router.PEOPLE)).developer.users).toHaveLength(20);
    expect(String(router.WORKFLOWS)).toContain('service-30-canary-');
    const telemetry = variablesOf(
      large.template,
      functionResource(large.template, 'IncidentTelemetryTools')[1],
    );
    expect(JSON.parse(String(telemetry.TELEMETRY_CONFIG)).services).toHaveLength(30);
    expect(existsSync(CONFIG_FILE_DIR)).toBe(false);
  });
});

describe('applying the configuration file at cold start', () => {
  const file = JSON.stringify({ CHANNELS: '{"bugReports":"C1"}', RETENTION_DAYS: '30' });

  it('copies each variable into the environment', () => {
    const env: NodeJS.ProcessEnv = { [CONFIG_FILE_VARIABLE]: '/opt/slack-agents/a.json' };
    expect(applyConfigFile(env, () => file)).toEqual(['CHANNELS', 'RETENTION_DAYS']);
    expect(env.CHANNELS).toBe('{"bugReports":"C1"}');
  });

  it('leaves a variable the environment already sets (a local override)', () => {
    const env: NodeJS.ProcessEnv = { [CONFIG_FILE_VARIABLE]: '/x.json', RETENTION_DAYS: '7' };
    applyConfigFile(env, () => file);
    expect(env.RETENTION_DAYS).toBe('7');
  });

  it('does nothing without a file named', () => {
    expect(applyConfigFile({}, () => file)).toEqual([]);
  });

  it('stops the cold start when the named file is missing or not an object of texts', () => {
    const env = () => ({ [CONFIG_FILE_VARIABLE]: '/opt/slack-agents/missing.json' });
    expect(() =>
      applyConfigFile(env(), () => {
        throw new Error('ENOENT');
      }),
    ).toThrow(
      expect.objectContaining({
        name: 'InvalidConfigFileError',
        message:
          'configuration file /opt/slack-agents/missing.json (SLACK_AGENTS_CONFIG_FILE) cannot be read',
      }),
    );
    expect(() => applyConfigFile(env(), () => '{"A": 1}')).toThrow(/non-text value for A/);
    expect(() => applyConfigFile(env(), () => '[1]')).toThrow(/not a JSON object/);
  });
});
