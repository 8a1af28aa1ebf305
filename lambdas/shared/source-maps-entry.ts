/**
 * Injected first into every function bundle (esbuild `inject`, infra/constructs/kernel-function.ts):
 * in a bundle, `import.meta.url` is the bundle's own file, whose `.map` sits beside it.
 */
import { installLazySourceMaps } from './lazy-source-maps.ts';

installLazySourceMaps(import.meta.url);
