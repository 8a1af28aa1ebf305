// The MCP conformance CLI imports `globSync` from `fs` by name, which Node 20 lacks (it came in
// Node 22); it uses it only for its `tier-check` command. On Node 20 its `fs` is Node's own plus a
// `globSync` that says so; on Node 22 Node's own is used unchanged.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
      export async function resolve(specifier, context, next) {
        if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/'))
          return { url: 'conformance-node20:fs', shortCircuit: true };
        return next(specifier, context);
      }
      export async function load(url, context, next) {
        if (url !== 'conformance-node20:fs') return next(url, context);
        return {
          format: 'module',
          shortCircuit: true,
          source: "import fs from 'node:fs'; export * from 'node:fs'; export default fs;" +
            " export const globSync = fs.globSync ?? (() => { throw new Error('fs.globSync needs Node 22'); });",
        };
      }
    `),
);
