import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CfnResource, Lazy, Stack } from 'aws-cdk-lib';
import { Architecture, type CfnFunction, Code, LayerVersion, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { CONFIG_FILE_DIR, CONFIG_FILES_METADATA_KEY } from '../../lambdas/shared/config-file.ts';
import { ENV } from '../../lambdas/shared/env.ts';
import type { KernelFunction } from './kernel-function.ts';

/**
 * The functions' configuration as files in a Lambda layer instead of environment variables:
 * Lambda holds 4 KB of environment per function in all and `CreateFunction` refuses more,
 * which synth never notices; a layer holds 250 MB. Every variable whose value is known at
 * synth (channels, people, triggers, limits, telemetry services...) moves into the function's
 * file `/opt/slack-agents/<digest>.json`; the environment keeps what only the deployment knows
 * (table, queue, secret and state machine ARNs...) and `SLACK_AGENTS_CONFIG_FILE`, the file's
 * path. The bundle's injected entry (lambdas/shared/config-file-entry.ts) reads the file into
 * `process.env` before the function's own code runs. Functions with the same variables share
 * one file. The files are also the layer's metadata (`slack-agents:config-files`), which the
 * sandbox reads to give the in-process handlers the same variables.
 */

/** Variables that stay in the environment: read by Node.js or the Lambda runtime before any bundle code. */
function staysInEnvironment(name: string): boolean {
  return name === 'NODE_OPTIONS' || name.startsWith('AWS_') || name === ENV.configFile;
}

export class FunctionConfiguration extends Construct {
  /** The layer holding every function's configuration file. */
  readonly layer: LayerVersion;
  /** The files by name (`<digest>.json`): what each holds. */
  readonly files: ReadonlyMap<string, Readonly<Record<string, string>>>;

  /**
   * Moves the synth-time variables of `functions` into files. Call it once every variable is
   * set: a variable added later stays in the environment.
   */
  constructor(scope: Construct, id: string, functions: readonly KernelFunction[]) {
    super(scope, id);
    const stack = Stack.of(this);
    const files = new Map<string, Record<string, string>>();
    const moves: [CfnFunction, string, ReadonlySet<string>][] = [];
    for (const fn of functions) {
      const resource = fn.node.defaultChild as CfnFunction;
      const resolved = stack.resolve(resource.environment) as
        | { variables?: Record<string, unknown> }
        | undefined;
      const moved: Record<string, string> = {};
      for (const [name, value] of Object.entries(resolved?.variables ?? {}).sort(([a], [b]) =>
        a.localeCompare(b),
      )) {
        if (typeof value === 'string' && !staysInEnvironment(name)) moved[name] = value;
      }
      if (Object.keys(moved).length === 0) continue;
      const text = JSON.stringify(moved);
      const file = `${createHash('sha256').update(text).digest('hex').slice(0, 16)}.json`;
      files.set(file, moved);
      moves.push([resource, file, new Set(Object.keys(moved))]);
    }
    this.files = files;

    // Written under a directory named after the content, so a synth repeats no work and leaves
    // one directory per distinct configuration.
    const all = JSON.stringify([...files].sort(([a], [b]) => a.localeCompare(b)));
    const directory = join(
      tmpdir(),
      'slack-agents-config',
      createHash('sha256').update(all).digest('hex').slice(0, 24),
    );
    const target = join(directory, 'slack-agents');
    mkdirSync(target, { recursive: true });
    for (const [file, variables] of files) writeFileSync(join(target, file), JSON.stringify(variables));

    this.layer = new LayerVersion(this, 'Layer', {
      code: Code.fromAsset(directory),
      compatibleRuntimes: [Runtime.NODEJS_22_X],
      compatibleArchitectures: [Architecture.ARM_64],
      description: 'The functions configuration files (read into the environment at cold start)',
    });
    (this.layer.node.defaultChild as CfnResource).addMetadata(
      CONFIG_FILES_METADATA_KEY,
      Object.fromEntries(files),
    );

    for (const [resource, file, names] of moves) {
      const original = resource.environment;
      resource.environment = Lazy.any({
        produce: () => {
          const current = stack.resolve(original) as { variables?: Record<string, unknown> } | undefined;
          const variables = Object.fromEntries(
            Object.entries(current?.variables ?? {}).filter(([name]) => !names.has(name)),
          );
          return { variables: { ...variables, [ENV.configFile]: `${CONFIG_FILE_DIR}/${file}` } };
        },
      });
    }
    for (const fn of functions) fn.addLayers(this.layer);
  }
}
