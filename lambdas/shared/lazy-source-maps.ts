import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Readable stack traces for the bundled functions without `--enable-source-maps`
 * : that flag makes Node parse the bundle's whole source map while the module loads,
 * which cost 17-26% of every cold import. Here the map is read and parsed only the first time
 * a stack trace is formatted (V8 formats `error.stack` lazily, on first access), so a function
 * that never logs an error never pays for it, and one that does gets `lambdas/...ts:line:col`.
 *
 * The bundles call this first thing (esbuild's `inject`, see infra/constructs/kernel-function.ts
 * and `source-maps-entry.ts`). Frames of other files, and every frame when the map cannot be
 * read, are formatted as V8 would.
 */
export function installLazySourceMaps(bundleUrl: string, readMap: () => string = defaultReader(bundleUrl)) {
  const bundlePath = bundleUrl.startsWith('file:') ? fileURLToPath(bundleUrl) : bundleUrl;
  let map: SourceMap | null | undefined;
  const sourceMap = (): SourceMap | null => {
    if (map !== undefined) return map;
    try {
      map = new SourceMap(JSON.parse(readMap()));
    } catch {
      // No map beside the bundle (or not one Node reads): minified positions are still a trace.
      map = null;
    }
    return map;
  };
  Error.prepareStackTrace = (error: Error, frames: NodeJS.CallSite[]): string => {
    const header = headerOf(error);
    const lines = frames.map((frame) => `    at ${mappedFrame(frame, bundleUrl, bundlePath, sourceMap)}`);
    return [header, ...lines].join('\n');
  };
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
  bundleUrl: string,
  bundlePath: string,
  sourceMap: () => SourceMap | null,
): string {
  const text = String(frame);
  const file = frame.getFileName();
  const line = frame.getLineNumber();
  const column = frame.getColumnNumber();
  if ((file !== bundleUrl && file !== bundlePath) || line === null || column === null) return text;
  const map = sourceMap();
  if (map === null) return text;
  // findEntry takes zero-based positions; V8's are one-based.
  const entry = map.findEntry(line - 1, column - 1) as Partial<{
    originalSource: string;
    originalLine: number;
    originalColumn: number;
    name: string;
  }>;
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

function defaultReader(bundleUrl: string): () => string {
  return () =>
    readFileSync(`${bundleUrl.startsWith('file:') ? fileURLToPath(bundleUrl) : bundleUrl}.map`, 'utf8');
}
