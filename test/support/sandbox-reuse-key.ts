import type { SandboxOptions } from '../../local/sandbox-options.ts';

/**
 * The key under which a reusable sandbox (local/sandbox.ts `startReusableSandbox`) may serve another
 * user: two option sets with the same key get the same template, environment and emulator
 * settings. Only what a fresh world sets anew may differ: the port when a free one is asked
 * for (0), and the model server the model front forwards to (`env.ANTHROPIC_BASE_URL`; whether
 * one is named stays in the key, since without one the demo model's settings apply).
 */
export function sandboxReuseKey(options: SandboxOptions): string {
  const { port, env, ...rest } = options;
  const { ANTHROPIC_BASE_URL: modelServer, ...otherEnv } = env ?? {};
  return canonical({
    ...rest,
    ...(port ? { port } : {}),
    env: { ...otherEnv, ...(modelServer ? { ANTHROPIC_BASE_URL: 'a model server of the caller' } : {}) },
  });
}

/** JSON with sorted keys; functions by their source, shared objects spelled out, cycles named. */
function canonical(value: unknown): string {
  const path = new Set<unknown>();
  const walk = (item: unknown): unknown => {
    if (typeof item === 'function') return `function ${item.name}: ${item.toString()}`;
    if (typeof item === 'bigint') return `${item}n`;
    if (typeof item === 'symbol') return item.toString();
    if (item === null || typeof item !== 'object') return item;
    if (path.has(item)) return '[cycle]';
    path.add(item);
    const out = Array.isArray(item)
      ? item.map(walk)
      : item instanceof Map || item instanceof Set
        ? [item.constructor.name, [...item.entries()].map(walk)]
        : Object.fromEntries(
            Object.keys(item)
              .sort()
              .map((key) => [key, walk((item as Record<string, unknown>)[key])]),
          );
    path.delete(item);
    return out;
  };
  return JSON.stringify(walk(value));
}
