/**
 * The incident investigation's errors. Each sets `name`: a Lambda error's name is what the
 * state machine's Retry and Catch match (validation errors are not retried).
 */

/** The incident's record is missing: the start did not run, or a wrong conversation id. */
export class IncidentNotFoundError extends Error {
  override readonly name = 'IncidentNotFoundError';
  constructor(readonly conversationId: string) {
    super(`no incident record for conversation ${conversationId}`);
  }
}

/** A task asked for something the record does not have (a step index past the plan). */
export class IncidentStateError extends Error {
  override readonly name = 'IncidentStateError';
}

/** A step that needs an approval was asked to run without one: refused, whatever the caller. */
export class ApprovalRequiredError extends Error {
  override readonly name = 'ApprovalRequiredError';
  constructor(readonly index: number) {
    super(`step ${index + 1} changes something and was not approved: it does not run`);
  }
}

/** The module's configuration (an environment variable the stack writes) is unreadable. */
export class IncidentConfigurationError extends Error {
  override readonly name = 'IncidentConfigurationError';
  constructor(variable: string, options: { cause: unknown }) {
    super(`${variable} is not valid incident configuration`, options);
  }
}

/** A skill's target could not be called (a transient AWS failure is rethrown as it is). */
export class SkillFailedError extends Error {
  override readonly name = 'SkillFailedError';
  constructor(skill: string, detail: string, options?: { cause: unknown }) {
    super(`skill ${skill} failed: ${detail}`, options);
  }
}
