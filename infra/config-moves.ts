import type { AnyWorkflowModule } from '../statemachines/workflow-module.ts';

/** A key of the configuration read from the place it moved away from. */
export interface MovedKey {
  /** The old path, e.g. `['telemetry']`. */
  readonly from: readonly string[];
  /** The new path, e.g. `['incidentInvestigation', 'telemetry']`. */
  readonly to: readonly string[];
}

/**
 * Moves the top-level keys the modules' sections took over (`settings.movedFrom`) into their
 * sections, so a configuration file written for the old place keeps working: `moved` lists
 * each key read from its old place (the caller warns), `conflicts` each key set in both places
 * (the caller refuses it: which one was meant is not ours to guess).
 */
export function applyMovedKeys(
  value: unknown,
  modules: readonly AnyWorkflowModule[],
): { value: unknown; moved: MovedKey[]; conflicts: MovedKey[] } {
  const moved: MovedKey[] = [];
  const conflicts: MovedKey[] = [];
  if (!isPlainObject(value)) return { value, moved, conflicts };
  let result: Record<string, unknown> = value;
  for (const module of modules) {
    const settings = module.settings;
    for (const [oldKey, field] of Object.entries(settings?.movedFrom ?? {})) {
      if (settings === undefined || !(oldKey in result)) continue;
      const key = { from: [oldKey], to: [settings.key, field] };
      const section = result[settings.key];
      if (section !== undefined && !isPlainObject(section)) continue;
      if (section !== undefined && field in section) {
        conflicts.push(key);
        continue;
      }
      const { [oldKey]: old, ...rest } = result;
      result = { ...rest, [settings.key]: { ...section, [field]: old } };
      moved.push(key);
    }
  }
  return { value: result, moved, conflicts };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
