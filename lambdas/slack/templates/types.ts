/** A Block Kit block, as the Slack Web API takes it. */
export type Block = Record<string, unknown>;

/** What a template renders: the message's text (notification and fallback) and its blocks. */
export interface RenderedMessage {
  readonly text: string;
  readonly blocks?: Block[];
}
