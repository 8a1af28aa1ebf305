import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../infra/config.ts';
import { type ConfigSource, remainingSteps, secretsOf } from '../../infra/preflight/deploy-steps.ts';
import { synthesizeTemplate } from '../../infra/synth.ts';

const guide = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
const example = JSON.parse(
  readFileSync(new URL('../../docs/examples/all-workflows.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

describe('the deploy guide', () => {
  const template = synthesizeTemplate({ config: example, sandbox: false }) as {
    Outputs: Record<string, unknown>;
  };
  const secretOutputs = Object.keys(template.Outputs).filter((output) => /Secret(Name|Arn)$/.test(output));
  const table = guide.slice(guide.indexOf('## 7. Secrets'), guide.indexOf('## 8.'));

  it('lists every secret the stack outputs in its one table of secrets, with its format', () => {
    expect(secretOutputs.length).toBeGreaterThanOrEqual(7);
    for (const output of secretOutputs)
      expect(table, output).toMatch(new RegExp(`\\| \`${output}\` \\|[^\\n]*\\{"`));
  });

  it('names, in the steps the preflight prints, only outputs the stack has', () => {
    const config = parseConfig(example);
    for (const { output } of secretsOf(config)) expect(Object.keys(template.Outputs)).toContain(output);
    const steps = remainingSteps(config, 'SlackAgents').join('\n');
    for (const [, output] of steps.matchAll(/\$\(out (\w+)\)/g))
      expect(Object.keys(template.Outputs)).toContain(output);
  });

  it('deploys, in the steps the preflight prints, the configuration the preflight read', () => {
    const config = parseConfig(example);
    const file = 'docs/examples/all-workflows.json';
    /** What bash hands `cdk` as the value of `-c slackAgents=...` in the printed deploy step. */
    const deployedWith = (source: ConfigSource, env: Record<string, string> = {}) => {
      const deploy =
        remainingSteps(config, 'SlackAgents', source).find((step) => step.includes('cdk deploy')) ?? '';
      const argument = /-c slackAgents=(.+)$/.exec(deploy)?.[1];
      if (argument === undefined) return undefined;
      return JSON.parse(
        execFileSync('bash', ['-c', `printf '%s' ${argument}`], {
          env: { ...process.env, ...env },
        }).toString(),
      ) as unknown;
    };
    expect(deployedWith({ kind: 'cdk.json' })).toBeUndefined();
    expect(deployedWith({ kind: 'file', path: file })).toEqual(example);
    const text = JSON.stringify({ ...example, botUserId: "U0BOT'S" });
    expect(deployedWith({ kind: 'text', text })).toEqual(JSON.parse(text));
    expect(deployedWith({ kind: 'env' }, { SLACK_AGENTS_CONFIG: JSON.stringify(example, null, 2) })).toEqual(
      example,
    );
    const steps = remainingSteps(config, 'SlackAgents', { kind: 'file', path: file }).join('\n');
    expect(steps).toContain(`npm run preflight -- -c '${file}' --live`);
    expect(steps).toContain(`npm run slack:manifest -- -c '${file}' --request-url`);
  });

  it('runs only npm scripts the project has, in order: preflight, deploy, secrets, live preflight, verification', () => {
    const scripts = (
      JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    for (const [, script] of guide.matchAll(/npm run ([\w:-]+)/g))
      expect(Object.keys(scripts)).toContain(script);
    const order = [
      '## 6. Configuration, preflight, deploy',
      'npx cdk deploy "$STACK"',
      '## 7. Secrets',
      '## 10. Preflight, live',
      '## 11. Verify the install',
    ];
    const positions = order.map((text) => guide.indexOf(text));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('says the functions run Node 22 and that Node 20 is past its end of life', () => {
    expect(guide).toMatch(/The Lambda functions run on Node 22\s+\(`NODEJS_22_X`\)/);
    expect(guide).toMatch(/Node 20 reached its end of life in April 2026/);
  });
});
