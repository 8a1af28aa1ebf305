/**
 * Families of incident causes, each recognised by a few words: a change that names several
 * families besides its own ("disk full, or a memory leak, or the deploy...") is a hedge, not a
 * cause. A family is the change's own when one of the truth's names for the change, or one of
 * the kinds it may be filed as, belongs to it.
 */

/** The family a kind of change belongs to, where it has one. */
const KIND_FAMILY: Record<string, string> = {
  deploy: 'deploy',
  configuration: 'configuration',
  feature_flag: 'feature flag',
  certificate: 'certificate',
};

export const CAUSE_FAMILIES: Record<string, RegExp> = {
  deploy: /\bdeploy|\brelease\b|\brollout\b|\bversion\b/,
  configuration: /\bconfig/,
  'feature flag': /\bflag\b|feature.?flag/,
  'memory leak': /memory leak|\boom\b|out ?of ?memory|\bleak/,
  'connection pool': /\bpool\b/,
  'name resolution': /\bdns\b|enotfound|\bhostname\b|\bendpoint\b/,
  certificate: /certificate|\bx509\b|\btls\b/,
  disk: /\bdisk\b|no space|\bstorage\b/,
  'rate limit': /rate.?limit|\b429\b|throttl/,
  'cache eviction': /evict|maxmemory/,
  'shared cluster load': /\bcpu\b|reindex|\bjob\b|saturat/,
  'provider degradation': /degrad|status page|provider latency/,
  timeout: /time.?out/,
  traffic: /\btraffic\b|campaign|\bsurge\b/,
};

/** The families `text` names that neither the truth's names for the change nor its kinds belong to. */
export function foreignCauses(text: string, names: readonly string[], kinds: readonly string[]): string[] {
  const lower = text.toLowerCase();
  const mine = new Set([
    ...Object.entries(CAUSE_FAMILIES)
      .filter(([, re]) => names.some((w) => re.test(w.toLowerCase())))
      .map(([family]) => family),
    ...kinds.flatMap((k) => KIND_FAMILY[k] ?? []),
  ]);
  return Object.entries(CAUSE_FAMILIES)
    .filter(([family, re]) => !mine.has(family) && re.test(lower))
    .map(([family]) => family);
}
