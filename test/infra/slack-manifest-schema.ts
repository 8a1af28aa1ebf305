/**
 * A JSON schema (draft 2020-12, for ajv) of the Slack app manifest fields this app may set,
 * written from Slack's app manifest reference (docs.slack.dev/reference/app-manifest): the
 * required keys, the types, the enumerated values and the documented length limits. Unknown
 * keys are refused, so a misspelt field fails here rather than in Slack's manifest editor.
 */
const httpsUrl = { type: 'string', pattern: '^https://[^\\s]+$' } as const;

/** Bot events of the Events API a bot may subscribe to (those near this app's needs). */
export const KNOWN_BOT_EVENTS = [
  'app_home_opened',
  'app_mention',
  'app_uninstalled',
  'assistant_thread_context_changed',
  'assistant_thread_started',
  'channel_archive',
  'channel_created',
  'file_shared',
  'link_shared',
  'member_joined_channel',
  'message.channels',
  'message.groups',
  'message.im',
  'message.mpim',
  'reaction_added',
  'reaction_removed',
  'tokens_revoked',
] as const;

export const SLACK_MANIFEST_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['display_information'],
  properties: {
    _metadata: {
      type: 'object',
      additionalProperties: false,
      properties: {
        major_version: { type: 'integer', enum: [1, 2] },
        minor_version: { type: 'integer', minimum: 0 },
      },
    },
    display_information: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 35 },
        description: { type: 'string', maxLength: 140 },
        long_description: { type: 'string', minLength: 174, maxLength: 4000 },
        background_color: { type: 'string', pattern: '^#([0-9a-fA-F]{3}){1,2}$' },
      },
    },
    features: {
      type: 'object',
      additionalProperties: false,
      properties: {
        app_home: {
          type: 'object',
          additionalProperties: false,
          properties: {
            home_tab_enabled: { type: 'boolean' },
            messages_tab_enabled: { type: 'boolean' },
            messages_tab_read_only_enabled: { type: 'boolean' },
          },
        },
        assistant_view: {
          type: 'object',
          additionalProperties: false,
          required: ['assistant_description'],
          properties: {
            assistant_description: { type: 'string', minLength: 1, maxLength: 200 },
            suggested_prompts: {
              type: 'array',
              maxItems: 4,
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['title', 'message'],
                properties: {
                  title: { type: 'string', minLength: 1 },
                  message: { type: 'string', minLength: 1 },
                },
              },
            },
          },
        },
        bot_user: {
          type: 'object',
          additionalProperties: false,
          required: ['display_name'],
          properties: {
            display_name: { type: 'string', minLength: 1, maxLength: 80, pattern: '^[a-z0-9._-]+$' },
            always_online: { type: 'boolean' },
          },
        },
        slash_commands: {
          type: 'array',
          maxItems: 50,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['command', 'description'],
            properties: {
              command: { type: 'string', pattern: '^/[a-z0-9_-]+$', maxLength: 32 },
              description: { type: 'string', minLength: 1, maxLength: 2000 },
              usage_hint: { type: 'string', maxLength: 1000 },
              url: httpsUrl,
              should_escape: { type: 'boolean' },
            },
          },
        },
      },
    },
    oauth_config: {
      type: 'object',
      additionalProperties: false,
      properties: {
        redirect_urls: { type: 'array', maxItems: 1000, items: httpsUrl },
        scopes: {
          type: 'object',
          additionalProperties: false,
          properties: {
            bot: {
              type: 'array',
              maxItems: 255,
              uniqueItems: true,
              items: { type: 'string', pattern: '^([a-z_]+:[a-z_.]+|commands|bot)$' },
            },
            user: { type: 'array', maxItems: 255, uniqueItems: true, items: { type: 'string' } },
          },
        },
      },
    },
    settings: {
      type: 'object',
      additionalProperties: false,
      properties: {
        allowed_ip_address_ranges: { type: 'array', maxItems: 10, items: { type: 'string' } },
        event_subscriptions: {
          type: 'object',
          additionalProperties: false,
          properties: {
            request_url: httpsUrl,
            bot_events: {
              type: 'array',
              maxItems: 100,
              uniqueItems: true,
              items: { type: 'string', enum: KNOWN_BOT_EVENTS },
            },
            user_events: { type: 'array', maxItems: 100, items: { type: 'string' } },
          },
        },
        interactivity: {
          type: 'object',
          additionalProperties: false,
          required: ['is_enabled'],
          properties: {
            is_enabled: { type: 'boolean' },
            request_url: httpsUrl,
            message_menu_options_url: httpsUrl,
          },
        },
        org_deploy_enabled: { type: 'boolean' },
        socket_mode_enabled: { type: 'boolean' },
        token_rotation_enabled: { type: 'boolean' },
      },
      // Without Socket Mode, Slack needs somewhere to send events and button presses.
      if: { properties: { socket_mode_enabled: { const: false } } },
      // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON schema keyword
      then: {
        properties: {
          event_subscriptions: { required: ['request_url'] },
          interactivity: {
            if: { properties: { is_enabled: { const: true } } },
            // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON schema keyword
            then: { required: ['request_url'] },
          },
        },
      },
    },
  },
} as const;
