import { createSlackPostHandler } from '../../../handlers/slack-post.ts';
import { BUG_INVESTIGATION_TEMPLATES } from '../templates/index.ts';

/** The bug investigation's SlackPost (and SLA tracking's): texts, and its findings, question and escalation. */
export const handler = createSlackPostHandler(BUG_INVESTIGATION_TEMPLATES);
