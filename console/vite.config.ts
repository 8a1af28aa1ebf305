import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The sandbox web console: plain TypeScript and DOM, bundled into `dist/console/`, which the
 * sandbox serves at its root URL (`npm run build:console`; `npm run dev` builds it first).
 */
export default defineConfig({
  root,
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // Small enough to read in the browser's dev tools; no source maps shipped.
    sourcemap: false,
  },
});
