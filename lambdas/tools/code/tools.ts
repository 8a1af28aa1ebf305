import * as z from 'zod';
import { type ToolSpec, toInputSchema } from '../invocation.ts';

/**
 * The six code tools as the model sees them: names, descriptions and argument schemas (zod,
 * sent as JSON Schema). No argument names a repository or a branch: the repository comes from
 * configuration and the branch from the conversation (workspace.ts).
 */

export const CODE_TOOL_NAMES = {
  listFiles: 'list_files',
  readFile: 'read_file',
  searchCode: 'search_code',
  writeFile: 'write_file',
  deleteFile: 'delete_file',
  getDiff: 'get_diff',
} as const;
export type CodeToolName = (typeof CODE_TOOL_NAMES)[keyof typeof CODE_TOOL_NAMES];

/** Output caps, held by code whatever the model asks. */
export const CODE_TOOL_LIMITS = {
  /** Characters of one tool answer. */
  maxOutputChars: 20_000,
  /** Characters of one printed line (read_file, search_code). */
  maxLineChars: 500,
  /** Paths list_files prints at most. */
  maxListed: 2_000,
  defaultListed: 500,
  maxMatches: 200,
  defaultMatches: 50,
  maxContextLines: 10,
  defaultContextLines: 2,
  maxPatternChars: 500,
  /** Characters of a commit message. */
  maxMessageChars: 500,
} as const;

const path = z.string().min(1).max(1024);

export const ListFilesArgs = z.strictObject({
  path: path
    .optional()
    .describe(
      'Directory to list, relative to the repository root, e.g. "src/lib". Omit for the whole repository.',
    ),
  glob: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .describe(
      'Only paths matching this glob: * ? [a-z] {a,b} and ** across directories; "*.ts" matches at any depth.',
    ),
  max_results: z
    .number()
    .int()
    .min(1)
    .max(CODE_TOOL_LIMITS.maxListed)
    .optional()
    .describe(`Most paths to print. Default ${CODE_TOOL_LIMITS.defaultListed}.`),
});

export const ReadFileArgs = z.strictObject({
  path: path.describe('File to read, relative to the repository root, e.g. "src/cart.ts".'),
  start_line: z.number().int().min(1).optional().describe('First line to print (1-based). Default 1.'),
  end_line: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Last line to print (inclusive). Default: the end, within the output cap.'),
});

export const SearchCodeArgs = z.strictObject({
  pattern: z.string().min(1).max(CODE_TOOL_LIMITS.maxPatternChars).describe('Text to find in each line.'),
  regex: z
    .boolean()
    .optional()
    .describe(
      "Treat pattern as a regular expression in RE2 syntax (default false: a literal string): as JavaScript's, without backreferences or lookaround.",
    ),
  path_glob: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .describe('Only files whose path matches this glob, e.g. "src/**/*.ts".'),
  case_sensitive: z.boolean().optional().describe('Default true.'),
  context_lines: z
    .number()
    .int()
    .min(0)
    .max(CODE_TOOL_LIMITS.maxContextLines)
    .optional()
    .describe(`Lines printed before and after each match. Default ${CODE_TOOL_LIMITS.defaultContextLines}.`),
  max_results: z
    .number()
    .int()
    .min(1)
    .max(CODE_TOOL_LIMITS.maxMatches)
    .optional()
    .describe(`Most matching lines. Default ${CODE_TOOL_LIMITS.defaultMatches}.`),
});

const message = z
  .string()
  .min(1)
  .max(CODE_TOOL_LIMITS.maxMessageChars)
  .optional()
  .describe('Commit message. Default: says which file was written or deleted.');

export const WriteFileArgs = z.strictObject({
  path: path.describe('File to write, relative to the repository root. Created if it does not exist.'),
  content: z.string().optional().describe('The whole new content of the file. Give this or diff, not both.'),
  diff: z
    .string()
    .min(1)
    .optional()
    .describe(
      'A unified diff of this one file (as `diff -u` or `git diff` print it) to apply to its current content.',
    ),
  message,
});

export const DeleteFileArgs = z.strictObject({
  path: path.describe('File to delete, relative to the repository root.'),
  message,
});

export const GetDiffArgs = z.strictObject({});

export const CODE_TOOL_ARGS = {
  list_files: ListFilesArgs,
  read_file: ReadFileArgs,
  search_code: SearchCodeArgs,
  write_file: WriteFileArgs,
  delete_file: DeleteFileArgs,
  get_diff: GetDiffArgs,
} as const satisfies Record<CodeToolName, z.ZodType>;

export type CodeToolArgs = { [K in CodeToolName]: z.infer<(typeof CODE_TOOL_ARGS)[K]> };

const DESCRIPTIONS: Record<CodeToolName, string> = {
  list_files:
    "List the repository's files (path and size), sorted, from the conversation's work branch once it exists, " +
    'else the base branch. Narrow with a directory path and/or a glob.',
  read_file:
    'Read a text file with numbered lines (`  12\\tcode`). Long files come in parts: ask for a line range. ' +
    'Binary and very large files are described (size, type), not printed.',
  search_code:
    'Search the files for a literal string or a regular expression. Prints `path:line:text` for each matching line ' +
    'and `path-line-text` for context lines, like grep -n; cite findings as path:line.',
  write_file:
    "Write one file on this conversation's work branch, as one commit: either its whole content, or a unified diff " +
    'against its current content (a diff that does not apply changes nothing and says why). The default branch is never written.',
  delete_file: "Delete one file on this conversation's work branch, as one commit.",
  get_diff:
    "Show what this conversation's work branch changes against its base branch: the commits and each file's patch.",
};

export const codeTools: Record<CodeToolName, ToolSpec> = Object.fromEntries(
  Object.values(CODE_TOOL_NAMES).map((name) => [
    name,
    { name, description: DESCRIPTIONS[name], inputSchema: toInputSchema(CODE_TOOL_ARGS[name]) },
  ]),
) as Record<CodeToolName, ToolSpec>;

export function isCodeToolName(name: string): name is CodeToolName {
  return Object.hasOwn(CODE_TOOL_ARGS, name);
}
