import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderConfigurationReference } from '../../infra/config-reference.ts';

describe('the configuration reference', () => {
  const written = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

  it('is what the schema generates (run npm run docs:config after changing the schema)', () => {
    expect(written).toBe(renderConfigurationReference());
  });

  it('lists the keys at every depth, the issue pipeline and the skills included', () => {
    for (const key of [
      '`issuePipeline.repository`',
      '`issuePipeline.sensitivePaths`',
      '`incidentInvestigation.skills[].target.function`',
      '`incidentInvestigation.skills[].target.document`',
      '`incidentInvestigation.telemetry.services[].metrics.namespace`',
      '`people.incident_approver.groups`',
      '`stackName`',
      '`botUserId`',
    ])
      expect(written, key).toContain(key);
  });
});
