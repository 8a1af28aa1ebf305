import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORKFLOW_MODULES } from '../../statemachines/index.ts';
import { SANDBOX_MODULES } from '../../statemachines/sandbox-modules.ts';
import { loadedModules } from '../support/loaded-modules.ts';

/**
 * The sandbox reads the workflow modules through `SANDBOX_MODULES`, which leaves out the code
 * that builds their state machines: the two lists must say the same, and a process that runs a
 * sandbox must not load aws-cdk-lib by the way.
 */

const ROOT = join(import.meta.dirname, '..', '..');

describe("the sandbox's view of the workflow modules", () => {
  it('names the same modules, in the same order, as WORKFLOW_MODULES', () => {
    expect(SANDBOX_MODULES.map((module) => module.name)).toEqual(
      WORKFLOW_MODULES.map((module) => module.name),
    );
  });

  it.each(WORKFLOW_MODULES.map((module, i) => [module.name, module, SANDBOX_MODULES[i]] as const))(
    'agrees with the %s module on its section, its workflows and what it declares for the sandbox',
    (_, module, sandbox) => {
      expect(sandbox?.settings?.key).toBe(module.settings?.key);
      expect(sandbox?.settings?.movedFrom).toEqual(module.settings?.movedFrom);
      expect(sandbox?.workflows?.map((workflow) => workflow.name)).toEqual(
        module.workflows?.map((workflow) => workflow.name),
      );
      // The same functions, not copies: each module takes them from its sandbox declarations.
      expect(sandbox?.demoAgents).toBe(module.demoAgents);
      expect(sandbox?.sandboxView).toBe(module.sandboxView);
      expect(sandbox?.sandboxRecords).toBe(module.sandboxRecords);
    },
  );

  /** Every project file `entry` loads by static imports (type imports load nothing), and the packages they name. */
  function loadedBy(entry: string): { files: Set<string>; packages: Map<string, string> } {
    const files = new Set<string>();
    const packages = new Map<string, string>();
    const queue = [resolve(ROOT, entry)];
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      if (files.has(file)) continue;
      files.add(file);
      for (const specifier of loadedModules(readFileSync(file, 'utf8')).static) {
        if (!specifier.startsWith('.')) {
          if (!packages.has(specifier)) packages.set(specifier, relative(ROOT, file));
          continue;
        }
        const target = resolve(dirname(file), specifier);
        if (existsSync(target)) queue.push(target);
      }
    }
    return { files, packages };
  }

  it.each(['local/sandbox.ts', 'local/main.ts', 'eval/worker.ts'])(
    '%s loads neither aws-cdk-lib nor the state machines’ code',
    (entry) => {
      const { files, packages } = loadedBy(entry);
      const cdk = [...packages].filter(([name]) => /^(aws-cdk-lib|constructs)(\/|$)/.test(name));
      expect(cdk.map(([name, from]) => `${name} from ${from}`)).toEqual([]);
      expect(files.has(resolve(ROOT, 'statemachines/index.ts'))).toBe(false);
      // The walk itself reaches what it should: the sandbox's own modules and the handlers' kernel.
      expect(files.has(resolve(ROOT, 'statemachines/sandbox-modules.ts'))).toBe(true);
    },
  );
});
