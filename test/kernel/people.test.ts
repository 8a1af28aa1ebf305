import { describe, expect, it } from 'vitest';
import { People, PeopleDirectory, type UserGroups, verifiedRole } from '../../lambdas/kernel/people.ts';

const PEOPLE = People.parse({
  developer: { groups: ['S_DEVELOPERS'], users: ['U_LEAD'] },
  on_call: { groups: ['S_ONCALL'] },
});

/** Group members from a table, counting the reads (Slack's usergroups.users.list). */
function groups(table: Record<string, string[]>) {
  const reads: string[] = [];
  let failNext = false;
  const source: UserGroups = {
    async members(groupId) {
      reads.push(groupId);
      if (failNext) {
        failNext = false;
        throw new Error('Slack unavailable');
      }
      return table[groupId] ?? [];
    },
  };
  return { source, reads, failOnce: () => (failNext = true) };
}

function clockAt(start: number) {
  let now = start;
  return { clock: { now: () => new Date(now) }, advance: (ms: number) => (now += ms) };
}

describe('the people directory', () => {
  const table = { S_DEVELOPERS: ['U_DEV', 'U_DEV2'], S_ONCALL: ['U_ONCALL'] };

  it('gives a role to the members of its groups and to the users it lists, and to nobody else', async () => {
    const directory = new PeopleDirectory(PEOPLE, groups(table).source, clockAt(0).clock);

    expect(await directory.rolesOf('U_DEV')).toEqual(['developer']);
    expect(await directory.rolesOf('U_LEAD')).toEqual(['developer']);
    expect(await directory.rolesOf('U_ONCALL')).toEqual(['on_call']);
    expect(await directory.rolesOf('U_THIRD')).toEqual([]);
    expect(await directory.holds('U_DEV', 'on_call')).toBe(false);
  });

  it('reads a group from Slack once per minute, not once per message', async () => {
    const source = groups(table);
    const time = clockAt(0);
    const directory = new PeopleDirectory(PEOPLE, source.source, time.clock);

    await directory.holds('U_DEV', 'developer');
    await directory.holds('U_DEV2', 'developer');
    time.advance(59_000);
    await directory.holds('U_THIRD', 'developer');
    expect(source.reads).toEqual(['S_DEVELOPERS']);

    time.advance(2_000);
    await directory.holds('U_DEV', 'developer');
    expect(source.reads).toEqual(['S_DEVELOPERS', 'S_DEVELOPERS']);
  });

  it('does not keep a failed read: the next message asks Slack again', async () => {
    const source = groups(table);
    const directory = new PeopleDirectory(PEOPLE, source.source, clockAt(0).clock);
    source.failOnce();

    await expect(directory.holds('U_DEV', 'developer')).rejects.toThrow('Slack unavailable');
    expect(await directory.holds('U_DEV', 'developer')).toBe(true);
    expect(source.reads).toEqual(['S_DEVELOPERS', 'S_DEVELOPERS']);
  });

  it('does not ask Slack about a user listed by id', async () => {
    const source = groups(table);
    const directory = new PeopleDirectory(PEOPLE, source.source, clockAt(0).clock);

    expect(await directory.holds('U_LEAD', 'developer')).toBe(true);
    expect(source.reads).toEqual([]);
  });
});

describe('a role claimed by a thread', () => {
  const directory = () =>
    new PeopleDirectory(
      PEOPLE,
      groups({ S_DEVELOPERS: ['U_DEV'], S_ONCALL: ['U_ONCALL'] }).source,
      clockAt(0).clock,
    );

  it('is given to a sender who holds it', async () => {
    expect(await verifiedRole(directory(), 'U_DEV', 'developer')).toBe('developer');
  });

  it('gives a sender who does not hold it the configured role they do hold', async () => {
    expect(await verifiedRole(directory(), 'U_ONCALL', 'developer')).toBe('on_call');
  });

  it('makes anyone else a participant, whatever channel or thread they write in', async () => {
    expect(await verifiedRole(directory(), 'U_THIRD', 'developer')).toBe('participant');
  });

  it('leaves a role the configuration does not know as the thread gives it', async () => {
    expect(await verifiedRole(directory(), 'U_THIRD', 'participant')).toBe('participant');
  });
});

describe('the people configuration', () => {
  it('refuses a group id that is not one, and a user id that is not one', () => {
    expect(() => People.parse({ developer: { groups: ['<!channel>'] } })).toThrow(/user group id/);
    expect(() => People.parse({ developer: { users: ['devs'] } })).toThrow(/user id/);
  });
});
