export { DEFAULT_PII, PII_CLASSES, type PiiClass, RedactionSettings } from './config.ts';
export { conversationInScope, doorRedactor, inConversation, tagScope } from './conversation-scope.ts';
export { InvalidRedactionSettingsError } from './errors.ts';
export { redactedForLog } from './for-log.ts';
export { redactionSettings, redactorFor } from './from-env.ts';
export { PLACEHOLDER, redactedValuesIn } from './placeholder.ts';
export {
  addCounts,
  familyTotals,
  type Redacted,
  type RedactionCounts,
  Redactor,
  redactionNote,
  totalOf,
} from './redactor.ts';
export { type KeptSide, safeCut } from './safe-cut.ts';
export { noteMade, tallyingRedactions } from './tally.ts';
