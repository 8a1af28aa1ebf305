import { describe, expect, it } from 'vitest';
import { resourcesOfType, templateOf } from './template.ts';

type Policy = { Statement: Array<{ DataIdentifier: unknown[]; Operation: Record<string, unknown> }> };

/** The identifiers' ARNs as text (each is an `Fn::Join` with the partition). */
function identifiersOf(policy: Policy): string {
  return JSON.stringify(policy.Statement[0]?.DataIdentifier ?? []);
}

describe('the log groups data protection', () => {
  it('masks secrets and cards in every log group of the stack by default', () => {
    const groups = Object.values(
      resourcesOfType(templateOf({ config: { sandbox: true } }), 'AWS::Logs::LogGroup'),
    );
    expect(groups.length).toBeGreaterThan(5);
    for (const group of groups) {
      const identifiers = identifiersOf(group.Properties.DataProtectionPolicy as Policy);
      expect(identifiers).toContain('data-identifier/AwsSecretKey');
      expect(identifiers).toContain('data-identifier/CreditCardNumber');
      expect(identifiers).not.toContain('data-identifier/EmailAddress');
    }
  });

  it('adds the configured classes', () => {
    const template = templateOf({ config: { sandbox: true, redaction: { pii: ['card', 'email', 'ip'] } } });
    for (const group of Object.values(resourcesOfType(template, 'AWS::Logs::LogGroup'))) {
      const identifiers = identifiersOf(group.Properties.DataProtectionPolicy as Policy);
      expect(identifiers).toContain('data-identifier/EmailAddress');
      expect(identifiers).toContain('data-identifier/IpAddress');
    }
  });

  it('keeps execution data out of every state machine log', () => {
    for (const machine of Object.values(
      resourcesOfType(templateOf({ config: { sandbox: true } }), 'AWS::StepFunctions::StateMachine'),
    )) {
      const logging = machine.Properties.LoggingConfiguration as { IncludeExecutionData: boolean };
      expect(logging.IncludeExecutionData).toBe(false);
    }
  });
});
