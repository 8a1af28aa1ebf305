import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';

/**
 * The definitions this process has validated, by their text: validation is a pure function of
 * the text and most of what registering a state machine costs, and every sandbox a test worker
 * starts registers the same few. Kept on `globalThis`, which a test worker's module resets
 * spare. Only successes are kept: an invalid definition is validated (and refused) every time.
 */
const VALIDATED = Symbol.for('slack-agent-workflows.local.validated-definitions');
const MAX_VALIDATED = 256;

/** Validates `definition` (whose JSON text is `source`) as aws-local-stepfunctions does; throws when invalid. */
export function validateOnce(source: string, definition: StateMachineDefinition): void {
  const holder = globalThis as { [VALIDATED]?: Set<string> };
  holder[VALIDATED] ??= new Set();
  const validated = holder[VALIDATED];
  if (validated.has(source)) return;
  new StateMachine(definition, { validationOptions: { checkArn: false } });
  if (validated.size >= MAX_VALIDATED) validated.clear();
  validated.add(source);
}
