import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../infra/config.ts';
import {
  buildSlackManifest,
  PLACEHOLDER_REQUEST_URL,
  requiredMethods,
  SLACK_METHOD_SCOPES,
  SLACK_METHODS_CALLED,
} from '../../infra/slack-manifest.ts';
import { WORKFLOW_MODULES } from '../../statemachines/index.ts';
import { SLACK_MANIFEST_SCHEMA } from './slack-manifest-schema.ts';

/** The manifest, as buildSlackManifest writes it. */
type SlackManifest = ReturnType<typeof buildSlackManifest>;

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REQUEST_URL = 'https://abcdefghijklmnop.lambda-url.eu-west-1.on.aws/';
const validate = new Ajv({ allErrors: true }).compile(SLACK_MANIFEST_SCHEMA);

/** The scope each event subscription needs, as Slack's event pages list them (`null`: none). */
const EVENT_SCOPES: Readonly<Record<string, string | null>> = {
  app_home_opened: null,
  app_mention: 'app_mentions:read',
  assistant_thread_context_changed: 'assistant:write',
  assistant_thread_started: 'assistant:write',
  'message.channels': 'channels:history',
  'message.im': 'im:history',
};

/** The production modules' manifest (with the sandbox's ids); `null`: no request URL given. */
function manifestFor(raw: object = {}, requestUrl: string | null = REQUEST_URL): SlackManifest {
  return buildSlackManifest({
    config: parseConfig({ sandbox: true, ...raw }),
    modules: WORKFLOW_MODULES,
    ...(requestUrl === null ? {} : { requestUrl }),
  });
}

function expectValid(manifest: unknown): void {
  const valid = validate(manifest);
  expect(validate.errors ?? []).toEqual([]);
  expect(valid).toBe(true);
}

/** Every .ts file under a folder. */
function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

const SLACK_FAMILIES =
  'admin|apps|assistant|auth|bookmarks|bots|calls|canvases|chat|conversations|dnd|emoji|files|pins|reactions|reminders|search|team|usergroups|users|views';

/**
 * The Slack Web API methods the production code calls: in each file that imports
 * `@slack/web-api` or its redacting subclass, every `<client>.<family>.<method>(` call and every `apiCall('<method>'`.
 * (Limited to those files: Octokit has `users`, `reactions` and `search` families too.)
 */
function slackMethodsInCode(): Map<string, string[]> {
  const calls = new Map<string, string[]>();
  const methodCall = new RegExp(
    `\\.(${SLACK_FAMILIES})\\s*\\.\\s*([A-Za-z0-9]+(?:\\s*\\.\\s*[A-Za-z0-9]+)?)\\s*\\(`,
    'g',
  );
  const apiCall = /\.apiCall\(\s*['"`]([a-z]+\.[A-Za-z.]+)['"`]/g;
  for (const file of ['lambdas', 'statemachines', 'infra'].flatMap(sourceFiles)) {
    const text = readFileSync(file, 'utf8');
    if (!/from ['"](@slack\/web-api|[./]+(slack\/)?redacting-web-client\.ts)['"]/.test(text)) continue;
    const found = [
      ...[...text.matchAll(methodCall)].map((m) => `${m[1]}.${(m[2] ?? '').replaceAll(/\s/g, '')}`),
      ...[...text.matchAll(apiCall)].map((m) => m[1] ?? ''),
    ];
    for (const method of found) calls.set(method, [...(calls.get(method) ?? []), relative(ROOT, file)]);
  }
  return calls;
}

describe('the Slack app manifest', () => {
  it('matches the manifest reference: required keys, types, enums and length limits', () => {
    expectValid(manifestFor());
    expectValid(manifestFor({}, null));
  });

  it('the schema refuses what Slack refuses (a long command description, a missing name, an unknown event)', () => {
    const manifest = manifestFor();
    const command = manifest.features.slash_commands?.[0];
    if (command === undefined) throw new Error('expected a slash command');
    expect(validate({ ...manifest, display_information: { description: 'x' } })).toBe(false);
    expect(
      validate({
        ...manifest,
        features: { ...manifest.features, slash_commands: [{ ...command, description: 'x'.repeat(2001) }] },
      }),
    ).toBe(false);
    expect(
      validate({
        ...manifest,
        features: { ...manifest.features, slash_commands: [{ ...command, command: `/${'p'.repeat(32)}` }] },
      }),
    ).toBe(false);
    expect(
      validate({
        ...manifest,
        settings: {
          ...manifest.settings,
          event_subscriptions: {
            ...manifest.settings.event_subscriptions,
            bot_events: ['message.everything'],
          },
        },
      }),
    ).toBe(false);
    expect(
      validate({ ...manifest, settings: { ...manifest.settings, interactivity: { is_enabled: true } } }),
    ).toBe(false);
  });

  it('sends events, button presses and slash commands to the deployed request URL, with socket mode off', () => {
    const manifest = manifestFor();
    expect(manifest.settings.event_subscriptions.request_url).toBe(REQUEST_URL);
    expect(manifest.settings.interactivity).toEqual({ is_enabled: true, request_url: REQUEST_URL });
    expect(manifest.settings.socket_mode_enabled).toBe(false);
    for (const command of manifest.features.slash_commands ?? []) expect(command.url).toBe(REQUEST_URL);
    expect(manifestFor({}, null).settings.event_subscriptions.request_url).toBe(PLACEHOLDER_REQUEST_URL);
  });

  it('refuses a request URL Slack would not call', () => {
    expect(() => manifestFor({}, 'http://abc.lambda-url.eu-west-1.on.aws/')).toThrow(/https/);
    expect(() => manifestFor({}, 'not a url')).toThrow(/not a URL/);
  });

  it("declares the slash commands of every enabled workflow, from the workflows' triggers", () => {
    expect(manifestFor().features.slash_commands).toEqual([
      {
        command: '/prd',
        description: 'Start a requirements interview: the bot asks about your idea, then writes a PRD',
        usage_hint: '<product idea>',
        url: REQUEST_URL,
        should_escape: false,
      },
      {
        command: '/investigate',
        description:
          'Investigate an incident: hypotheses tested against telemetry, a cited conclusion, approved fixes',
        usage_hint: '<description, alarm name or PagerDuty incident id>',
        url: REQUEST_URL,
        should_escape: false,
      },
    ]);
    const registered = WORKFLOW_MODULES.flatMap((module) => module.workflows ?? [])
      .flatMap((workflow) => (typeof workflow.triggers === 'function' ? [] : workflow.triggers))
      .filter((trigger) => trigger.type === 'slash_command')
      .map((trigger) => trigger.command);
    for (const command of registered)
      expect(manifestFor().features.slash_commands?.map((c) => c.command)).toContain(command);
  });

  it('subscribes to the events the ingress handles: messages in public channels, mentions, the App Home and the assistant thread', () => {
    expect(manifestFor().settings.event_subscriptions.bot_events).toEqual([
      'app_home_opened',
      'app_mention',
      'assistant_thread_context_changed',
      'assistant_thread_started',
      'message.channels',
      'message.im',
    ]);
  });

  it('enables the Home tab and the assistant view, with the prompts the assistant thread offers', () => {
    const { features } = manifestFor();
    expect(features.app_home.home_tab_enabled).toBe(true);
    expect(features.app_home.messages_tab_enabled).toBe(true);
    expect(features.assistant_view.suggested_prompts.map((p) => p.title)).toContain('Write a PRD with me');
    expect(features.assistant_view.assistant_description).toMatch(/prd/);
  });

  it('covers every Slack method the code calls with a listed scope, and lists no method the code does not call', () => {
    const inCode = slackMethodsInCode();
    // The scan must see the calls we know of, or it proves nothing.
    expect([...inCode.keys()]).toEqual(
      expect.arrayContaining(['chat.postMessage', 'files.uploadV2', 'usergroups.users.list']),
    );
    expect([...inCode.keys()].sort()).toEqual([...SLACK_METHODS_CALLED].sort());
    const scopes = manifestFor().oauth_config.scopes.bot;
    for (const method of requiredMethods([...inCode.keys()])) {
      const needed = SLACK_METHOD_SCOPES[method];
      expect(needed, `no scopes known for ${method}`).toBeDefined();
      for (const scope of needed ?? []) expect(scopes, `${method} needs ${scope}`).toContain(scope);
    }
  });

  it('requests exactly the scopes the calls, the events and the slash commands need', () => {
    expect(manifestFor().oauth_config.scopes.bot).toEqual([
      'app_mentions:read', // app_mention
      'assistant:write', // assistant.threads.setStatus (live progress), setSuggestedPrompts, assistant_thread_started
      'channels:history', // message.channels, conversations.history and conversations.replies
      'chat:write', // chat.postMessage, and the streams chat.startStream, appendStream, stopStream
      'commands', // /prd
      'files:write', // files.uploadV2: files.getUploadURLExternal and files.completeUploadExternal
      'im:history', // message.im (the assistant thread)
      'usergroups:read', // usergroups.users.list
    ]);
    const { oauth_config, settings } = manifestFor();
    for (const event of settings.event_subscriptions.bot_events) {
      expect(Object.keys(EVENT_SCOPES), `no scope known for ${event}`).toContain(event);
      const scope = EVENT_SCOPES[event];
      if (scope) expect(oauth_config.scopes.bot, `${event} needs ${scope}`).toContain(scope);
    }
  });

  it('declares no slash command and no commands scope without a workflow that has one', () => {
    const modules = WORKFLOW_MODULES.filter(
      (module) => module.name !== 'requirements_interview' && module.name !== 'incident_investigation',
    );
    const manifest = buildSlackManifest({
      config: parseConfig({ sandbox: true }, modules),
      modules,
      requestUrl: REQUEST_URL,
    });
    expectValid(manifest);
    expect(manifest.features.slash_commands).toBeUndefined();
    expect(manifest.oauth_config.scopes.bot).not.toContain('commands');
  });

  it('offers no /prd when the requirements interview is off', () => {
    const commands = (raw: object) => (manifestFor(raw).features.slash_commands ?? []).map((c) => c.command);
    expect(commands({})).toContain('/prd');
    expect(commands({ requirementsInterview: { enabled: false } })).not.toContain('/prd');
  });

  it('leaves a module switched off in the configuration out of the description', () => {
    expect(manifestFor().display_information.description).toContain('channel conversations');
    expect(
      manifestFor({ channelConversations: { enabled: false } }).display_information.description,
    ).not.toContain('channel conversations');
  });
});

describe('npm run slack:manifest', () => {
  // `npm run slack:manifest` is `tsx scripts/slack-manifest.ts`: Node with tsx's loader, one
  // process (tsx's own command line would start Node as a second).
  const run = (args: string[], env: Record<string, string> = {}) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/slack-manifest.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });

  it('prints the manifest with the given request URL and the configuration from SLACK_AGENTS_CONFIG', async () => {
    const { stdout } = await run(['--request-url', REQUEST_URL], {
      SLACK_AGENTS_CONFIG: JSON.stringify({
        channels: { bugReports: 'C0123', bugSummaries: 'C0124', developers: 'C0125' },
        people: { developer: { groups: ['S0123'] }, on_call: { groups: ['S0124'] } },
        incidentInvestigation: { enabled: false },
      }),
    });
    const manifest = JSON.parse(stdout) as SlackManifest;
    expectValid(manifest);
    expect(manifest.settings.event_subscriptions.request_url).toBe(REQUEST_URL);
  });

  it('fails naming the bad field of a configuration given with -c', async () => {
    await expect(run(['-c', '{"reporterWaitSecs":5}'])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        'slackAgents.reporterWaitSecs: unknown key; did you mean reporterWaitSeconds?',
      ),
    });
  });
});
