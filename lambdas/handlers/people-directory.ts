import { getSlackSecret } from '../adapters/secrets.ts';
import { People, PeopleDirectory } from '../kernel/people.ts';
import { systemClock } from '../kernel/ports.ts';
import { ENV } from '../shared/env.ts';
import { createSlackUserGroups } from '../slack/user-groups.ts';

/**
 * The configured roles (PEOPLE), built once per Lambda instance with its group cache; none
 * without PEOPLE. The Router labels senders with it; a workflow's check of who asked (the bug
 * fix path's) asks it again rather than trust a label carried through the state.
 */
let directory: Promise<PeopleDirectory | undefined> | undefined;

export function peopleDirectory(env: NodeJS.ProcessEnv = process.env): Promise<PeopleDirectory | undefined> {
  directory ??= (async () => {
    const raw = env[ENV.people];
    if (raw === undefined || raw === '') return undefined;
    const people = People.parse(JSON.parse(raw));
    const { botToken } = await getSlackSecret();
    const slackApiUrl = env[ENV.slackApiUrl];
    const groups = createSlackUserGroups({ token: botToken, ...(slackApiUrl ? { slackApiUrl } : {}) });
    return new PeopleDirectory(people, groups, systemClock);
  })().catch((error: unknown) => {
    // A configuration or secret error must not stick to the instance.
    directory = undefined;
    throw error;
  });
  return directory;
}
