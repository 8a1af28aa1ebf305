import { createSlackPostHandler } from '../../../handlers/slack-post.ts';
import { PROBE_TEMPLATES } from '../templates.ts';

/** The probe's SlackPost: texts, and its agent's answer with feedback buttons. */
export const handler = createSlackPostHandler(PROBE_TEMPLATES);
