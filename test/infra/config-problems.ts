import { InvalidConfigError, parseConfig } from '../../infra/config.ts';

/** The problem lines of a configuration (none: it parses). */
export function configProblems(raw: unknown): string[] {
  try {
    parseConfig(raw);
    return [];
  } catch (error) {
    if (error instanceof InvalidConfigError) return [...error.issues];
    throw error;
  }
}
