import { ASSISTANT_PROMPTS } from '../lambdas/home/assistant.ts';
import type { KernelConfig } from '../statemachines/workflow-module.ts';
import { type AnyWorkflowModule, resolveTriggers } from '../statemachines/workflow-module.ts';

/**
 * The Slack app manifest (https://docs.slack.dev/reference/app-manifest) generated from the
 * stack configuration and the workflow modules: what `npm run slack:manifest` prints, to paste
 * into "Create New App -> From an app manifest" (or the app's App Manifest page).
 *
 * Scopes are derived, never listed by hand: each Web API method the code calls needs the
 * scopes in SLACK_METHOD_SCOPES, each bot event its own, and slash commands `commands`. The
 * test `test/infra/slack-manifest.test.ts` reads the code for the methods it calls and fails
 * when one is missing from SLACK_METHODS_CALLED.
 */

/**
 * Bot token scopes each Slack Web API method needs (the method pages of docs.slack.dev),
 * for the methods this code calls or is likely to. Public channels, and the direct messages of
 * the assistant thread (`message.im`): `groups:*` and `mpim:*` are not requested.
 */
export const SLACK_METHOD_SCOPES: Readonly<Record<string, readonly string[]>> = {
  'chat.postMessage': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.delete': ['chat:write'],
  'chat.getPermalink': [],
  'chat.startStream': ['chat:write'],
  'chat.appendStream': ['chat:write'],
  'chat.stopStream': ['chat:write'],
  'conversations.history': ['channels:history'],
  'conversations.replies': ['channels:history'],
  'conversations.info': ['channels:read'],
  'conversations.members': ['channels:read'],
  'conversations.join': ['channels:join'],
  'files.getUploadURLExternal': ['files:write'],
  'files.completeUploadExternal': ['files:write'],
  'files.info': ['files:read'],
  'reactions.add': ['reactions:write'],
  'reactions.remove': ['reactions:write'],
  'usergroups.list': ['usergroups:read'],
  'usergroups.users.list': ['usergroups:read'],
  'users.info': ['users:read'],
  'users.list': ['users:read'],
  'auth.test': [],
  // The App Home and the feedback's reason form: views need no scope of their own.
  'views.open': [],
  'views.publish': [],
  'assistant.threads.setSuggestedPrompts': ['assistant:write'],
  'assistant.threads.setStatus': ['assistant:write'],
  'assistant.threads.setTitle': ['assistant:write'],
};

/**
 * Helpers of `@slack/web-api` that call several methods: `files.uploadV2` asks for an upload
 * URL, sends the bytes there, then completes (shares) the upload.
 */
export const SLACK_COMPOSITE_METHODS: Readonly<Record<string, readonly string[]>> = {
  'files.uploadV2': ['files.getUploadURLExternal', 'files.completeUploadExternal'],
};

/**
 * The Web API methods the handlers call (lambdas/slack/web-client.ts, user-groups.ts). The
 * manifest test reads the code and fails when this list and the calls differ, either way.
 */
export const SLACK_METHODS_CALLED: readonly string[] = [
  'chat.postMessage',
  // Approvals: the decision replaces the buttons; a refused press is told privately.
  'chat.postEphemeral',
  'chat.update',
  // A reporter's thread links to the findings posted for the developers.
  'chat.getPermalink',
  'conversations.history',
  'conversations.replies',
  'files.uploadV2',
  // The members of the configured roles' user groups (slackAgents.people).
  'usergroups.users.list',
  // The bot's own user id when it is not configured (lambdas/adapters/bot-user-id.ts), and
  // the preflight's check of the token (no scope needed).
  'auth.test',
  // Live progress (lambdas/slack/progress-client.ts): a turn's streamed task timeline, and
  // the status of an assistant thread.
  'chat.startStream',
  'chat.appendStream',
  'chat.stopStream',
  // A turn's closed timeline, once the post that replaces it is out (one message per turn).
  'chat.delete',
  'assistant.threads.setStatus',
  // The feedback's reason form (lambdas/feedback), and the App Home (lambdas/home).
  'views.open',
  'views.publish',
  // The assistant thread's prompts (lambdas/home/assistant.ts).
  'assistant.threads.setSuggestedPrompts',
];

/**
 * The events the ingress handles (lambdas/ingress/slack-payloads.ts: `message` in public
 * channels and `app_mention`), with the scope each subscription needs.
 */
const SLACK_BOT_EVENTS: Readonly<Record<string, string | null>> = {
  app_mention: 'app_mentions:read',
  'message.channels': 'channels:history',
  // The App Home tab (lambdas/home): needs no scope.
  app_home_opened: null,
  // The assistant thread (Slack's split view for AI apps) and the messages people write in it.
  assistant_thread_started: 'assistant:write',
  assistant_thread_context_changed: 'assistant:write',
  'message.im': 'im:history',
};

/** The assistant (split view) panel: what Slack shows before a thread starts. */
export const ASSISTANT_DESCRIPTION =
  'Ask a question, or start a PRD with "prd: <your idea>". Bug reports, incidents and fixes keep to their channels.';

/** A slash command as the manifest declares it. */
export interface ManifestSlashCommand {
  command: string;
  description: string;
  usage_hint?: string;
  url: string;
  should_escape: boolean;
}

/** The manifest fields this app sets (a subset of what Slack accepts). */
export interface SlackManifest {
  _metadata: { major_version: number; minor_version: number };
  display_information: { name: string; description: string; background_color: string };
  features: {
    app_home: {
      home_tab_enabled: boolean;
      messages_tab_enabled: boolean;
      messages_tab_read_only_enabled: boolean;
    };
    assistant_view: {
      assistant_description: string;
      suggested_prompts: { title: string; message: string }[];
    };
    bot_user: { display_name: string; always_online: boolean };
    slash_commands?: ManifestSlashCommand[];
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    event_subscriptions: { request_url: string; bot_events: string[] };
    interactivity: { is_enabled: boolean; request_url: string };
    org_deploy_enabled: boolean;
    socket_mode_enabled: boolean;
    token_rotation_enabled: boolean;
  };
}

/** Where Slack sends everything until the deployed `SlackRequestUrl` output is given. */
export const PLACEHOLDER_REQUEST_URL = 'https://replace-with-the-slackrequesturl-output.invalid/';

export interface SlackManifestOptions {
  /** The validated stack configuration (infra/config.ts `parseConfig`). */
  readonly config: KernelConfig & { readonly [section: string]: unknown };
  /** The workflow modules the stack deploys. */
  readonly modules: readonly AnyWorkflowModule[];
  /**
   * The stack output `SlackRequestUrl` (the ingress Function URL): events, interactivity and
   * slash commands all go there. Must be https.
   * @default PLACEHOLDER_REQUEST_URL
   */
  readonly requestUrl?: string;
  /** The app's name in Slack (at most 35 characters). @default 'Slack Agents' */
  readonly appName?: string;
  /** The bot's display name (a-z, 0-9, `-`, `_`, `.`; at most 80). @default 'slack-agents' */
  readonly botDisplayName?: string;
}

export class InvalidManifestOptionError extends Error {
  override readonly name = 'InvalidManifestOptionError';
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
  }
}

/**
 * The Slack app manifest for these modules under this configuration: the slash commands of
 * every enabled workflow, the bot events the ingress handles, and exactly the scopes the
 * code's Web API calls, those events and the commands need. A pure function.
 * @throws InvalidManifestOptionError on a request URL that is not https, or a name Slack refuses
 */
export function buildSlackManifest(options: SlackManifestOptions): SlackManifest {
  const requestUrl = checkRequestUrl(options.requestUrl ?? PLACEHOLDER_REQUEST_URL);
  const appName = options.appName ?? 'Slack Agents';
  if (appName.length === 0 || appName.length > 35)
    throw new InvalidManifestOptionError(`app name must be 1 to 35 characters: "${appName}"`);
  const botDisplayName = options.botDisplayName ?? 'slack-agents';
  if (!/^[a-z0-9._-]{1,80}$/.test(botDisplayName))
    throw new InvalidManifestOptionError(
      `bot display name must be 1 to 80 of a-z, 0-9, "-", "_", ".": "${botDisplayName}"`,
    );

  const modules = enabledModules(options);
  const workflows = modules.flatMap(({ module, settings }) =>
    (module.workflows ?? []).map((workflow) => ({
      name: workflow.name,
      triggers: resolveTriggers(workflow, options.config, settings),
    })),
  );
  const slashCommands = workflows.flatMap(({ name, triggers }) =>
    triggers.flatMap((trigger): ManifestSlashCommand[] =>
      trigger.type === 'slash_command'
        ? [
            {
              command: trigger.command,
              description: trigger.description ?? `Start a ${name.replaceAll('_', ' ')}`,
              ...(trigger.usageHint === undefined ? {} : { usage_hint: trigger.usageHint }),
              url: requestUrl,
              should_escape: false,
            },
          ]
        : [],
    ),
  );
  const botEvents = Object.keys(SLACK_BOT_EVENTS).sort();
  const scopes = new Set<string>([
    ...requiredMethods(SLACK_METHODS_CALLED).flatMap(scopesOf),
    ...botEvents.flatMap((event) => SLACK_BOT_EVENTS[event] ?? []),
    ...(slashCommands.length > 0 ? ['commands'] : []),
  ]);
  const names = modules.map(({ module }) => module.name.replaceAll('_', ' '));

  return {
    _metadata: { major_version: 1, minor_version: 1 },
    display_information: {
      name: appName,
      description: truncate(`AI agents in Slack: ${names.join(', ') || 'no workflow enabled'}`, 140),
      background_color: '#1d3557',
    },
    features: {
      // The Home tab shows each person their conversations, approvals and help (lambdas/home);
      // the Messages tab holds the assistant threads, where people write to the bot.
      app_home: {
        home_tab_enabled: true,
        messages_tab_enabled: true,
        messages_tab_read_only_enabled: false,
      },
      assistant_view: {
        assistant_description: ASSISTANT_DESCRIPTION,
        suggested_prompts: ASSISTANT_PROMPTS.map((p) => ({ title: p.title, message: p.message })),
      },
      bot_user: { display_name: botDisplayName, always_online: true },
      ...(slashCommands.length > 0 ? { slash_commands: slashCommands } : {}),
    },
    oauth_config: { scopes: { bot: [...scopes].sort() } },
    settings: {
      event_subscriptions: { request_url: requestUrl, bot_events: botEvents },
      // Buttons of the bot's messages (block_actions) reach the same ingress.
      interactivity: { is_enabled: true, request_url: requestUrl },
      org_deploy_enabled: false,
      socket_mode_enabled: false,
      token_rotation_enabled: false,
    },
  };
}

/** The methods a list of called methods amounts to, composite helpers expanded. */
export function requiredMethods(called: readonly string[]): string[] {
  return [...new Set(called.flatMap((method) => SLACK_COMPOSITE_METHODS[method] ?? [method]))];
}

function scopesOf(method: string): readonly string[] {
  const scopes = SLACK_METHOD_SCOPES[method];
  if (scopes === undefined)
    throw new InvalidManifestOptionError(
      `no scopes known for the Slack method ${method}: add it to SLACK_METHOD_SCOPES`,
    );
  return scopes;
}

/** The modules that deploy anything under the configuration, with their settings. */
function enabledModules(options: SlackManifestOptions) {
  return options.modules.flatMap((module) => {
    const settings = module.settings === undefined ? undefined : options.config[module.settings.key];
    return module.enabled?.(settings) === false ? [] : [{ module, settings }];
  });
}

function checkRequestUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch (cause) {
    throw new InvalidManifestOptionError(`request URL is not a URL: "${text}"`, { cause });
  }
  if (url.protocol !== 'https:')
    throw new InvalidManifestOptionError(`Slack only calls https request URLs: "${text}"`);
  return url.href;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
