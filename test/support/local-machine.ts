import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { validateOnce } from '../../local/stepfunctions/validated-definitions.ts';

/**
 * aws-local-stepfunctions' interpreter for `definition`, validated as the sandbox validates it
 * (once per definition's text, local/stepfunctions/validated-definitions.ts): a test that runs
 * the same graph in many scenarios pays for the validator's schema compilation once.
 */
export function validatedMachine(definition: unknown): StateMachine {
  const typed = definition as StateMachineDefinition;
  validateOnce(JSON.stringify(definition), typed);
  return new StateMachine(typed, { validationOptions: { noValidate: true } });
}
