/** How a shared file is summed up in its card: its size and its first lines (no DOM here). */

import type { FileShare } from './api.ts';

/** Lines of a file shown in its card. */
const PREVIEW_LINES = 12;

/** `2,345 bytes` / `12.3 KB`. */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes.toLocaleString('en-US')} ${bytes === 1 ? 'byte' : 'bytes'}`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The preview's first lines, marked when there is more. */
export function previewText(file: Pick<FileShare, 'preview' | 'truncated'>): string {
  const lines = file.preview.replace(/\s+$/, '').split('\n');
  const shown = lines.slice(0, PREVIEW_LINES).join('\n');
  return lines.length > PREVIEW_LINES || file.truncated ? `${shown}\n…` : shown;
}
