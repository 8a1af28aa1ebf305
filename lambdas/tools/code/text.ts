import { safeCut } from '../../redaction/index.ts';

/**
 * Text and binary: what the code tools return as text, and how they describe what they do not.
 */

/** Bytes looked at to decide whether a file is binary (git looks at the first 8000). */
const SNIFF_BYTES = 8192;

/**
 * The text of a file, or `undefined` if it is binary: a NUL in its first 8 KiB (as git and
 * ripgrep decide it) or bytes that are not UTF-8. The regular expression worker applies the
 * same rule, so both searches skip the same files.
 */
export function decodeText(content: Uint8Array): string | undefined {
  if (content.subarray(0, SNIFF_BYTES).includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch {
    return undefined;
  }
}

const MAGIC: Array<[number[], string]> = [
  [[0x89, 0x50, 0x4e, 0x47], 'PNG image'],
  [[0xff, 0xd8, 0xff], 'JPEG image'],
  [[0x47, 0x49, 0x46, 0x38], 'GIF image'],
  [[0x25, 0x50, 0x44, 0x46], 'PDF document'],
  [[0x50, 0x4b, 0x03, 0x04], 'ZIP archive (or jar, docx, xlsx)'],
  [[0x1f, 0x8b], 'gzip archive'],
  [[0x7f, 0x45, 0x4c, 0x46], 'ELF executable'],
  [[0x00, 0x61, 0x73, 0x6d], 'WebAssembly module'],
  [[0x52, 0x49, 0x46, 0x46], 'RIFF media (WebP, WAV, AVI)'],
  [[0x77, 0x4f, 0x46], 'web font (WOFF)'],
  [[0xca, 0xfe, 0xba, 0xbe], 'Java class or Mach-O universal binary'],
  [[0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], 'SQLite database'],
];

const EXTENSIONS: Record<string, string> = {
  ico: 'icon image',
  svg: 'SVG image',
  mp4: 'MP4 video',
  mp3: 'MP3 audio',
  ttf: 'TrueType font',
  otf: 'OpenType font',
  woff2: 'web font (WOFF2)',
  exe: 'Windows executable',
  dll: 'Windows library',
  so: 'shared library',
  jar: 'Java archive',
  lock: 'lock file',
  min: 'minified file',
};

/** A short guess at a file's type, from its first bytes, else its extension. */
export function describeType(path: string, head: Uint8Array | undefined): string {
  if (head !== undefined) {
    for (const [magic, type] of MAGIC) if (magic.every((byte, k) => head[k] === byte)) return type;
  }
  const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  if (extension !== undefined && Object.hasOwn(EXTENSIONS, extension)) return EXTENSIONS[extension] as string;
  return extension === undefined ? 'file without extension' : `.${extension} file`;
}

/** `1.2 MB`, `830 B`: sizes as people read them. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * A line cut to at most `limit` characters with a marker saying how much is left out; the cut
 * never splits a secret or personal value the redaction layer finds (it moves before it).
 */
export async function clipLine(line: string, limit: number): Promise<string> {
  if (line.length <= limit) return line;
  const keep = await safeCut(line, limit, 'head');
  return `${line.slice(0, keep)} [... ${line.length - keep} more characters]`;
}
