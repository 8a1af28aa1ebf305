import type { SandboxOptions } from '../../local/sandbox-options.ts';
import { KERNEL_PROBE_MODULE } from '../../statemachines/probe.ts';

/** The channel the kernel probe listens in. */
export const PROBE_CHANNEL = 'C_PROBE';

/** A sandbox of the kernel probe alone, on a free port, its waits scaled down, silent. */
export const PROBE_SANDBOX: SandboxOptions = {
  port: 0,
  timeScale: 0.001,
  modules: [KERNEL_PROBE_MODULE],
  config: { channels: { probe: PROBE_CHANNEL } },
  logLevel: 'SILENT',
};
