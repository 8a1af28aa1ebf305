import * as z from 'zod';
import { invalidArgumentsMessage, type ToolContext, type ToolResult } from '../invocation.ts';
import { assertOwnedBranch } from './branch-ownership.ts';
import { CodeToolRefusal } from './errors.ts';
import { listFiles, readFile, searchCode } from './read-tools.ts';
import { CODE_TOOL_ARGS, type CodeToolArgs, type CodeToolName, isCodeToolName } from './tools.ts';
import { type CodeToolDeps, Workspace } from './workspace.ts';
import { deleteFile, getDiff, writeFile } from './write-tools.ts';

/**
 * Runs one code tool call for the conversation whose agent made it. Arguments that do not
 * match the tool's schema, and every refusal (`CodeToolRefusal`: a path outside the
 * repository, a diff that does not apply, a regular expression RE2 cannot express...),
 * come back as `ok: false` with a message the model can act on; nothing was changed. Other
 * failures (GitHub down, a misconfiguration) throw.
 */
export async function runCodeTool(
  invocation: { tool: string; args: unknown; conversationId: string; context?: ToolContext | undefined },
  deps: CodeToolDeps,
): Promise<ToolResult> {
  const { tool } = invocation;
  if (!isCodeToolName(tool)) {
    return {
      ok: false,
      error: `unknown code tool ${JSON.stringify(tool)}: the code tools are ${Object.keys(CODE_TOOL_ARGS).join(', ')}`,
    };
  }
  const parsed = (CODE_TOOL_ARGS[tool] as z.ZodType).safeParse(invocation.args ?? {});
  if (!parsed.success) return { ok: false, error: invalidArgumentsMessage(tool, parsed.error as z.ZodError) };
  try {
    const given = invocation.context?.workBranch;
    const workspace = new Workspace(deps, invocation.conversationId, given);
    // A branch the workflow named is checked before even a read: a wrong one is a defect to see
    // at once, and one the conversation does not own (a direct invoke naming another
    // conversation's branch) must change nothing.
    if (given !== undefined) {
      await assertOwnedBranch(given, invocation.conversationId, deps.config.branchPrefix, deps.workBranches);
      await workspace.assertNotProtected();
    }
    return { ok: true, output: await RUNNERS[tool](workspace, parsed.data as never) };
  } catch (error) {
    if (error instanceof CodeToolRefusal) return { ok: false, error: `${tool}: ${error.message}` };
    throw error;
  }
}

const RUNNERS: { [K in CodeToolName]: (workspace: Workspace, args: CodeToolArgs[K]) => Promise<string> } = {
  list_files: listFiles,
  read_file: readFile,
  search_code: searchCode,
  write_file: writeFile,
  delete_file: deleteFile,
  get_diff: (workspace) => getDiff(workspace),
};

/** The tool names a function serving the code tools answers to. */
export const CodeToolInvocationName = z.enum(
  Object.keys(CODE_TOOL_ARGS) as [CodeToolName, ...CodeToolName[]],
);
