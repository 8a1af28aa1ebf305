import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { afterEach, describe, expect, it } from 'vitest';
import { functionCode } from '../../infra/constructs/function-bundle.ts';
import { CHANNEL_ENV } from '../../lambdas/workflows/channel-conversations/env.ts';
import { CHANNEL_CONVERSATIONS_MODULE } from '../../statemachines/channel-conversations.ts';
import { WORKFLOW_MODULES } from '../../statemachines/index.ts';
import { KERNEL_PROBE_MODULE } from '../../statemachines/probe.ts';
import { defineWorkflowModule } from '../../statemachines/workflow-module.ts';
import { functionResource, templateOf, variablesOf } from './template.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const CHANNEL_PART = 'lambdas/workflows/channel-conversations/handlers/router.ts';

/** The Router's resource in the template of these options. */
function routerOf(options: Parameters<typeof templateOf>[0]) {
  return functionResource(templateOf(options), 'Router')[1];
}

describe("the Router's parts", () => {
  it("are the enabled modules' routerAdditions in the modules' order, on the kernel's Router entry", () => {
    const second = defineWorkflowModule({
      name: 'second_addition',
      roles: [],
      routerAdditions: 'lambdas/workflows/second/router.ts',
    });
    const router = routerOf({ modules: [...WORKFLOW_MODULES, second] });
    expect(router?.Metadata?.['slack-agents:entry']).toBe('lambdas/handlers/router.ts');
    expect(router?.Metadata?.['slack-agents:parts']).toEqual([
      CHANNEL_PART,
      'lambdas/workflows/second/router.ts',
    ]);
  });

  it('leave out a module that is off, and are absent when no module adds to the Router', () => {
    const off = routerOf({ config: { channelConversations: { enabled: false } } });
    expect(off?.Metadata?.['slack-agents:parts']).toBeUndefined();
    const probe = routerOf({ modules: [KERNEL_PROBE_MODULE], config: { channels: { probe: 'C_PROBE' } } });
    expect(probe?.Metadata?.['slack-agents:parts']).toBeUndefined();
    expect(probe?.Metadata?.['slack-agents:entry']).toBe('lambdas/handlers/router.ts');
  });

  it("give the Router each adding module's variables, and fail the synth when two disagree", () => {
    const agreeing = defineWorkflowModule({
      name: 'agreeing',
      roles: [],
      routerAdditions: 'lambdas/workflows/agreeing/router.ts',
      environment: () => ({ SHARED_SETTING: 'one' }),
    });
    const disagreeing = defineWorkflowModule({
      name: 'disagreeing',
      roles: [],
      routerAdditions: 'lambdas/workflows/disagreeing/router.ts',
      environment: () => ({ SHARED_SETTING: 'two' }),
    });
    const template = templateOf({ modules: [CHANNEL_CONVERSATIONS_MODULE, agreeing] });
    const variables = variablesOf(template, functionResource(template, 'Router')[1]);
    expect(variables.SHARED_SETTING).toBe('one');
    expect(Object.keys(variables)).toContain('CHANNEL_CONVERSATIONS');
    expect(() => routerOf({ modules: [agreeing, disagreeing] })).toThrow(
      /disagreeing sets the Router's SHARED_SETTING differently/,
    );
  });
});

describe("the Router's answer kinds", () => {
  it("are every enabled module's, each with its name, and fail the synth when two modules name one differently", () => {
    const template = templateOf({});
    const variables = variablesOf(template, functionResource(template, 'Router')[1]);
    expect(JSON.parse(String(variables.ANSWER_KINDS))).toEqual({
      findings: 'these findings',
      pull_request: 'this pull request',
      prd: 'this PRD',
      analysis: 'this analysis',
      channel_answer: 'this answer',
      conclusion: 'this conclusion',
    });
    const renaming = defineWorkflowModule({
      name: 'renaming',
      roles: [],
      answerKinds: { findings: 'these results' },
    });
    expect(() => templateOf({ modules: [...WORKFLOW_MODULES, renaming] })).toThrow(
      /renaming names the answer kind findings differently/,
    );
  });
});

describe('a composed entry', () => {
  it("bundles the Router's entry with its parts: the deployed Router carries channel conversations' addition", async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'composed-router-'));
    dirs.push(outdir);
    // The code as the stack gives it to the Router, bundled as a deploy stages it.
    functionCode(process.cwd(), 'lambdas/handlers/router.ts', [CHANNEL_PART]).bind(
      new Stack(new App({ outdir }), 'Bundle'),
    );
    const staged = readdirSync(outdir).filter((name) => name.startsWith('asset.'));
    expect(staged).toHaveLength(1);
    const bundle = readFileSync(join(outdir, staged[0] ?? '', 'index.mjs'), 'utf8');
    // The part's switch and the kernel's Router are both in the one entry file.
    expect(bundle).toContain(CHANNEL_ENV.settings);
    expect(bundle).toContain('routed inbox record');
    expect(bundle).not.toContain(join(tmpdir(), 'composed-entry-'));
  });
});
