import { existsSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize } from 'node:path';

/** Serves the built web console (`npm run build:console`) from the sandbox's own port. */

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
};

/** The built web console: its files, and index.html for every other page path. */
export function serveConsole(dir: string, path: string, res: ServerResponse): void {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('The console is not built: run `npm run build:console` (npm run dev does it for you).\n');
    return;
  }
  const file = normalize(join(dir, decodeURIComponent(path)));
  const target = file.startsWith(dir) && extname(file) !== '' && existsSync(file) ? file : index;
  res.writeHead(200, { 'content-type': CONTENT_TYPES[extname(target)] ?? 'application/octet-stream' });
  res.end(readFileSync(target));
}
