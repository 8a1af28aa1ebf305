/**
 * The sandbox's JSON shapes of a conversation and its messages, as its console lists and shows
 * them: the sandbox serves them (local/sandbox-routes.ts), a module's sandbox records give them
 * (module-sandbox.ts), and the console reads them (console/src/api.ts). Types only, so the
 * console's browser build can import them.
 */

/** Where a conversation lives in Slack: a named thread. */
export interface Anchor {
  name: string;
  channel: string;
  threadTs: string;
}

/** A conversation as the console's list shows it. */
export interface ConversationView {
  id: string;
  workflow: string;
  status: string;
  phase: string;
  executionName?: string;
  anchors: Anchor[];
  agentTurnRunning: boolean;
  createdAt: string;
  updatedAt: string;
  /** The text of its first message from a person (a report, a command, an issue, an alert). */
  opening?: string;
}

/** A stored message as the console's conversation history shows it. */
export interface MessageView {
  ts: string;
  channel: string;
  threadTs?: string;
  senderType: string;
  senderId: string;
  messageType: string;
  text: string;
  receivedAt?: string;
  deliveredInTurn?: number;
}
