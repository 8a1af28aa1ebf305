import { createSlackPostHandler } from '../../../handlers/slack-post.ts';
import { REQUIREMENTS_INTERVIEW_TEMPLATES } from '../templates.ts';

/** The requirements interview's SlackPost: texts, its questions, and the PRD and analysis with their files. */
export const handler = createSlackPostHandler(REQUIREMENTS_INTERVIEW_TEMPLATES);
