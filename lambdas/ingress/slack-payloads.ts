import * as z from 'zod';

/**
 * The Slack payloads the ingress reads, as zod schemas. Loose objects: Slack adds fields
 * freely and we pass them by; strict on the few fields we route on.
 */

const Id = z.string().min(1);

/** Any Events API body: the outer `type` decides what it is. */
export const EventsApiBody = z.looseObject({ type: Id });

/** Slack checks the endpoint by asking it to echo a challenge (signed, like everything). */
export const UrlVerification = z.looseObject({
  type: z.literal('url_verification'),
  challenge: z.string(),
});

export const EventCallback = z.looseObject({
  type: z.literal('event_callback'),
  event_id: Id,
  team_id: z.string().optional(),
  event: z.looseObject({ type: Id }),
});
export type EventCallback = z.infer<typeof EventCallback>;

/**
 * Who sent a message event. Read before the strict schema, because the events we skip
 * (bot posts, edits, joins) legitimately lack the fields a user's message must have.
 */
export const MessageSender = z.looseObject({
  subtype: z.string().optional(),
  bot_id: z.string().nullish(),
  user: z.string().optional(),
  /** Present on a message edited after it was posted (Slack sends `app_mention` again on an edit). */
  edited: z.unknown().optional(),
});

/** A user's message or mention. `text` may be absent on file-only posts; it defaults to ''. */
export const MessageEvent = z.looseObject({
  type: z.enum(['message', 'app_mention']),
  subtype: z.string().optional(),
  user: Id,
  channel: Id,
  text: z.string().default(''),
  ts: Id,
  thread_ts: Id.optional(),
  team: z.string().optional(),
});

/** Form fields of a slash command (`application/x-www-form-urlencoded`). */
export const SlashCommandForm = z.looseObject({
  command: z.string().regex(/^\/\S+$/, 'a slash command starts with / and has no spaces'),
  text: z.string().default(''),
  user_id: Id,
  channel_id: Id,
  team_id: z.string().optional(),
  trigger_id: Id,
  response_url: z.string().optional(),
});

/** Any interactivity payload (the JSON inside the `payload` form field). */
export const InteractionPayload = z.looseObject({ type: Id });

const BlockAction = z.looseObject({
  action_id: Id,
  action_ts: Id,
  block_id: z.string().optional(),
  value: z.string().optional(),
  selected_option: z.looseObject({ value: z.string() }).nullish(),
});

export const BlockActions = z.looseObject({
  type: z.literal('block_actions'),
  trigger_id: Id.optional(),
  user: z.looseObject({ id: Id }),
  team: z.looseObject({ id: Id }).nullish(),
  channel: z.looseObject({ id: Id }).nullish(),
  container: z.looseObject({
    type: Id,
    message_ts: Id.optional(),
    channel_id: Id.optional(),
    thread_ts: Id.optional(),
  }),
  message: z
    .looseObject({
      thread_ts: Id.optional(),
      text: z.string().optional(),
      blocks: z.array(z.unknown()).optional(),
    })
    .nullish(),
  actions: z.array(BlockAction).min(1),
});
export type BlockActions = z.infer<typeof BlockActions>;
