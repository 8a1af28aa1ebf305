import { MissingConfigurationError } from '../../../shared/env.ts';
import { ISSUE_PIPELINE_SETTINGS_ENV, IssuePipelineSettings } from '../config.ts';

let settings: IssuePipelineSettings | undefined;

/**
 * The pipeline's settings (`ISSUE_PIPELINE_SETTINGS`, set by its module), parsed on first use
 * (the sandbox loads handlers before it sets the environment). A module of its own: the
 * AgentTurn reads the pipeline's ceilings from it without loading the document's store.
 */
export function pipelineSettings(): IssuePipelineSettings {
  if (settings === undefined) {
    const raw = process.env[ISSUE_PIPELINE_SETTINGS_ENV];
    if (!raw) throw new MissingConfigurationError(ISSUE_PIPELINE_SETTINGS_ENV);
    settings = IssuePipelineSettings.parse(JSON.parse(raw));
  }
  return settings;
}
