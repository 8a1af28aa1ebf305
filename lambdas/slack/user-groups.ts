import { WebClient } from '@slack/web-api';
import type { UserGroups } from '../kernel/people.ts';
import { pacedRetryConfig } from './retry-pacing.ts';
import { slackFailure } from './slack-call.ts';

/**
 * User group membership from Slack's `usergroups.users.list` (scope `usergroups:read`),
 * through the same Web API client as the posts. The kernel's PeopleDirectory caches it.
 */
export function createSlackUserGroups(options: {
  token: string;
  slackApiUrl?: string;
  maxRetries?: number;
}): UserGroups {
  const client = new WebClient(options.token, {
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    retryConfig: pacedRetryConfig({
      retries: options.maxRetries ?? 3,
      factor: 2,
      minTimeout: 500,
      maxTimeout: 5_000,
    }),
  });
  return {
    async members(groupId) {
      try {
        const result = await client.usergroups.users.list({ usergroup: groupId });
        return result.users ?? [];
      } catch (error) {
        throw slackFailure('usergroups.users.list', error);
      }
    },
  };
}
