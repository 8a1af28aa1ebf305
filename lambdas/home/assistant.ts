import type { AssistantThreadStarted, SurfaceOutcome } from '../kernel/inbox-surface.ts';
import type { HomeSlack } from './ports.ts';

/**
 * The app's assistant thread (Slack's split view): when a person opens one, it offers prompts
 * to start with. A message in the thread is a direct message to the bot: one that begins with
 * a requirements interview keyword (`prd`, `idea`...) starts an interview in the thread, and
 * any other is answered as a question in a channel would be.
 */
export const ASSISTANT_PROMPTS: readonly { title: string; message: string }[] = [
  {
    title: 'Write a PRD with me',
    message: 'prd: I have a product idea and would like a PRD. Ask me about it.',
  },
  { title: 'What can you do?', message: 'What can the agents here do for me, and how do I start each?' },
  { title: 'Report a bug', message: 'How do I report a bug so that it gets investigated?' },
];

export async function startAssistantThread(
  started: AssistantThreadStarted,
  slack: Pick<HomeSlack, 'suggestPrompts'>,
): Promise<SurfaceOutcome> {
  await slack.suggestPrompts({
    channel: started.channel,
    threadTs: started.threadTs,
    title: 'Start with one of these, or just ask',
    prompts: ASSISTANT_PROMPTS,
  });
  return { type: 'surface', surface: 'assistant_thread_started', outcome: 'prompts_set' };
}
