import { DataIdentifier, DataProtectionPolicy } from 'aws-cdk-lib/aws-logs';
import type { PiiClass } from '../../lambdas/redaction/config.ts';

/**
 * CloudWatch Logs' managed data identifiers for the redaction layer's classes: the platform's
 * own logs (Lambda and state machine) are masked for the same classes the layer redacts
 * before prompts and posts. Secrets CloudWatch can recognise (AWS secret keys, private keys)
 * are masked always.
 */
const SECRETS = [
  DataIdentifier.AWSSECRETKEY,
  DataIdentifier.OPENSSHPRIVATEKEY,
  DataIdentifier.PGPPRIVATEKEY,
  DataIdentifier.PKCSPRIVATEKEY,
  DataIdentifier.PUTTYPRIVATEKEY,
];

const IDENTIFIERS: Record<PiiClass, DataIdentifier[]> = {
  card: [DataIdentifier.CREDITCARDNUMBER],
  email: [DataIdentifier.EMAILADDRESS],
  ip: [DataIdentifier.IPADDRESS],
  phone: [
    DataIdentifier.PHONENUMBER_US,
    DataIdentifier.PHONENUMBER_GB,
    DataIdentifier.PHONENUMBER_DE,
    DataIdentifier.PHONENUMBER_FR,
    DataIdentifier.PHONENUMBER_ES,
    DataIdentifier.PHONENUMBER_IT,
    DataIdentifier.PHONENUMBER_BR,
  ],
  iban: [
    DataIdentifier.BANKACCOUNTNUMBER_DE,
    DataIdentifier.BANKACCOUNTNUMBER_ES,
    DataIdentifier.BANKACCOUNTNUMBER_FR,
    DataIdentifier.BANKACCOUNTNUMBER_GB,
    DataIdentifier.BANKACCOUNTNUMBER_IT,
  ],
};

/** The managed identifiers a log group's policy audits and masks for `pii`. */
export function logDataIdentifiers(pii: readonly PiiClass[]): DataIdentifier[] {
  return [...SECRETS, ...pii.flatMap((kind) => IDENTIFIERS[kind])];
}

/** A data protection policy (audit and mask) for one log group. */
export function logDataProtection(pii: readonly PiiClass[]): DataProtectionPolicy {
  return new DataProtectionPolicy({
    name: 'slack-agents-redaction',
    description: 'Masks the secrets and personal data the redaction layer redacts',
    identifiers: logDataIdentifiers(pii),
  });
}
