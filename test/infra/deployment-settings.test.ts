import { describe, expect, it } from 'vitest';
import { InvalidConfigError, parseConfig, type SlackAgentsConfigInput } from '../../infra/config.ts';
import { resourcesOfType, templateOf } from './template.ts';

const preferences = (config: SlackAgentsConfigInput) =>
  Object.values(resourcesOfType(templateOf({ config }), 'AWS::StepFunctions::StateMachineAlias')).map(
    (alias) => alias.Properties.DeploymentPreference as Record<string, unknown>,
  );

describe('the deployment setting', () => {
  it('moves every workflow alias to the new version at once by default', () => {
    const all = preferences({});
    expect(all.length).toBe(4);
    for (const preference of all) {
      expect(preference).toEqual({ StateMachineVersionArn: expect.anything(), Type: 'ALL_AT_ONCE' });
    }
  });

  it('maps a canary with its percent, interval and rollback alarms onto every alias', () => {
    const all = preferences({
      deployment: { strategy: 'canary', percent: 10, intervalMinutes: 30, alarms: ['workflow-errors'] },
    });
    expect(all.length).toBe(4);
    for (const preference of all) {
      expect(preference).toEqual({
        StateMachineVersionArn: expect.anything(),
        Type: 'CANARY',
        Percentage: 10,
        Interval: 30,
        Alarms: ['workflow-errors'],
      });
    }
  });

  it('refuses a gradual strategy without its percent and interval', () => {
    expect(() => parseConfig({ deployment: { strategy: 'linear' } })).toThrow(InvalidConfigError);
    expect(() => parseConfig({ deployment: { strategy: 'linear', percent: 20 } })).toThrow(
      /linear needs intervalMinutes/,
    );
  });

  it('refuses settings all_at_once would ignore', () => {
    expect(() => parseConfig({ deployment: { percent: 20 } })).toThrow(/percent would do nothing/);
    expect(() => parseConfig({ deployment: { alarms: ['errors'] } })).toThrow(/alarms would do nothing/);
  });

  it('refuses a percent outside what the alias accepts', () => {
    expect(() =>
      parseConfig({ deployment: { strategy: 'canary', percent: 100, intervalMinutes: 5 } }),
    ).toThrow(InvalidConfigError);
  });
});
