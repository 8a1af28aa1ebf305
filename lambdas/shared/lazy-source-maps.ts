import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MappedPosition, SourceMapLookup } from './source-map-lookup.ts';

/**
 * Readable stack traces for the bundled functions without `--enable-source-maps`
 * : that flag makes Node parse the bundle's whole source map while the module loads,
 * which cost 17-26% of every cold import. Here the map is read and parsed only the first time
 * a stack trace is formatted (V8 formats `error.stack` lazily, on first access), so a function
 * that never logs an error never pays for it, and one that does gets `lambdas/...ts:line:col`.
 *
 * The bundles call this first thing (esbuild's `inject`, see infra/constructs/function-bundle.ts
 * and `source-maps-entry.ts`). Frames of other files, and every frame when the map cannot be
 * read, are formatted as V8 would.
 */
export function installLazySourceMaps(
  bundleUrl: string,
  readMap: (bundlePath: string) => string = (bundlePath) => readFileSync(`${bundlePath}.map`, 'utf8'),
) {
  const bundleDir = dirname(pathOf(bundleUrl));
  // The bundle is split into chunks (infra/constructs/function-bundle.ts): each file beside this
  // one has its own map, read the first time one of its frames is formatted.
  const maps = new Map<string, SourceMapLookup | null>();
  const sourceMap = (bundlePath: string): SourceMapLookup | null => {
    const known = maps.get(bundlePath);
    if (known !== undefined) return known;
    let map: SourceMapLookup | null;
    try {
      // Not Node's `SourceMap`, which decodes the whole map at once (source-map-lookup.ts).
      map = new SourceMapLookup(JSON.parse(readMap(bundlePath)));
    } catch {
      // No map beside the bundle (or not one Node reads): minified positions are still a trace.
      map = null;
    }
    maps.set(bundlePath, map);
    return map;
  };
  Error.prepareStackTrace = (error: Error, frames: NodeJS.CallSite[]): string => {
    const header = headerOf(error);
    const lines = frames.map((frame) => `    at ${mappedFrame(frame, bundleDir, sourceMap)}`);
    return [header, ...lines].join('\n');
  };
}

function pathOf(fileOrUrl: string): string {
  return fileOrUrl.startsWith('file:') ? fileURLToPath(fileOrUrl) : fileOrUrl;
}

/** What V8 puts above the frames: `Name: message`, or the error's own string. */
function headerOf(error: Error): string {
  try {
    return String(error);
  } catch {
    return '<error>';
  }
}

/** The frame as V8 prints it, with a bundle position replaced by the original file's. */
function mappedFrame(
  frame: NodeJS.CallSite,
  bundleDir: string,
  sourceMap: (bundlePath: string) => SourceMapLookup | null,
): string {
  const text = String(frame);
  const file = frame.getFileName();
  const line = frame.getLineNumber();
  const column = frame.getColumnNumber();
  if (file === undefined || file === null || line === null || column === null) return text;
  if (file.startsWith('node:')) return text;
  const bundlePath = pathOf(file);
  if (dirname(bundlePath) !== bundleDir) return text;
  const map = sourceMap(bundlePath);
  if (map === null) return text;
  // findEntry takes zero-based positions; V8's are one-based.
  let entry: MappedPosition;
  try {
    entry = map.findEntry(line - 1, column - 1);
  } catch {
    // Mappings the lookup cannot read: the frame as V8 gave it.
    return text;
  }
  if (entry.originalSource === undefined || entry.originalLine === undefined) return text;
  const original = `${sourceName(entry.originalSource)}:${entry.originalLine + 1}:${(entry.originalColumn ?? 0) + 1}`;
  const mapped = text.replace(`${file}:${line}:${column}`, original);
  // The minifier renamed the function; the map knows its name (Node 20.? and later give it).
  const name = frame.getFunctionName();
  return name && entry.name ? mapped.replace(`${name} (`, `${entry.name} (`) : mapped;
}

/**
 * esbuild names sources relative to the bundle (`../../../lambdas/kernel/route.ts`, however
 * deep the bundling directory was): keep the part a reader knows, from the repository's folders.
 */
function sourceName(source: string): string {
  const inModules = source.lastIndexOf('node_modules/');
  if (inModules !== -1) return source.slice(inModules);
  const ours = /(?:^|\/)((?:lambdas|statemachines|infra|local)\/.*)$/.exec(source);
  return ours?.[1] ?? source.replace(/^(?:\.\.\/)+/, '');
}
