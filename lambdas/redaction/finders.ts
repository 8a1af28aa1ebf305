import type { PiiClass } from './config.ts';
import type { Finding } from './findings.ts';
import { findPii } from './pii.ts';
import { findSecrets } from './secret-rules.ts';
import { findShapes } from './shapes.ts';

/**
 * Every secret and every value of the `pii` classes in `text`: the vendor rule set's findings,
 * the shapes' and personal data's. The engines behind them (secretlint's rules, re2js) are most
 * of the redaction layer's code, so this module is what `Redactor` loads on its first text
 * (redactor.ts), not what a function's cold start compiles.
 */
export async function findAll(text: string, pii: readonly PiiClass[]): Promise<Finding[]> {
  return [...(await findSecrets(text)), ...findShapes(text), ...findPii(text, pii)];
}
