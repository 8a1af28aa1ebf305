/** A Block Kit block, as the Slack Web API takes it. */
export type Block = Record<string, unknown>;

/** A text file a template shares with its message (e.g. a PRD as Markdown). */
export interface RenderedFile {
  readonly filename: string;
  readonly title: string;
  readonly content: string;
}

/**
 * What a template renders: the message's text (notification and fallback), its blocks, and
 * a file SlackPost uploads to the message's thread after it.
 */
export interface RenderedMessage {
  readonly text: string;
  readonly blocks?: Block[];
  readonly file?: RenderedFile;
}
