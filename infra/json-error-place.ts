/** Where a configuration's JSON text is malformed, for the line that refuses it. */

/**
 * Where JSON.parse stopped, as a line and column (1-based) of `text` with what it read there:
 * ` (not valid JSON at line 3, column 5: Expected double-quoted property name)`. JSON.parse
 * names a character offset (`at position 14`) or none at the end of the text.
 */
export function jsonErrorPlace(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const offset = /at position (\d+)/.exec(message)?.[1];
  const position = offset === undefined ? text.length : Math.min(Number(offset), text.length);
  const before = text.slice(0, position).split('\n');
  const line = before.length;
  const column = (before.at(-1)?.length ?? 0) + 1;
  const what = message
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/\s*in JSON at position \d+/, '')
    .replace(/^Unexpected end of JSON input$/, 'the text ends before the JSON does');
  return ` (not valid JSON at line ${line}, column ${column}: ${what})`;
}
