import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Background noise for the demo incident from Loghub's 2k samples (Zhu et al., "Loghub: A
 * Large Collection of System Log Datasets for AI-driven Log Analytics", ISSRE 2023;
 * https://github.com/logpai/loghub), read at start from a directory the operator names
 * (`SANDBOX_LOGHUB_DIR`). The data is licensed for research use and never copied into this
 * repository: without the directory the demo simply has no noise, and says why.
 */

/** The systems whose lines look like what runs beside a service on a host. */
const SYSTEMS = ['Linux', 'OpenSSH', 'Apache'] as const;

export function readLoghubNoise(dir: string | undefined): { lines: string[]; note?: string } {
  if (dir === undefined || dir === '')
    return { lines: [], note: 'no Loghub noise: SANDBOX_LOGHUB_DIR is not set' };
  const lines: string[] = [];
  const missing: string[] = [];
  for (const system of SYSTEMS) {
    const file = join(dir, `${system}_2k.log`);
    if (!existsSync(file)) {
      missing.push(file);
      continue;
    }
    lines.push(
      ...readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== ''),
    );
  }
  // Interleave the systems so every stretch of the demo has a mix.
  const interleaved = lines
    .map((line, i) => ({ line, key: (i * 2_654_435_761) % 4_294_967_296 }))
    .sort((a, b) => a.key - b.key)
    .map((x) => x.line);
  return {
    lines: interleaved,
    ...(missing.length > 0 ? { note: `Loghub files not found, skipped: ${missing.join(', ')}` } : {}),
  };
}
