/**
 * Reads the shell examples of a Markdown page as a reader would run them: the `bash` fenced
 * blocks, split into the commands a shell would see (a command goes on while a quote, a `$(`
 * or a trailing backslash is open), with the `# -> ...` comment that follows a command kept as
 * what it says the command answers.
 */

export interface ShellCommand {
  /** The command's text, its continuation lines included. */
  text: string;
  /** `# -> {"ts":"<report ts>"}`: the answer the page promises, if it says one. */
  answer?: string;
}

export interface ShellBlock {
  /** 1-based line of the opening fence in the page. */
  line: number;
  commands: ShellCommand[];
}

const FENCE = /^```(\w*)\s*$/;

/** The page's `bash`/`sh` blocks, in order. */
export function shellBlocks(markdown: string): ShellBlock[] {
  const blocks: ShellBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '');
    if (!open) continue;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^```\s*$/.test(lines[j] ?? ''); j++) body.push(lines[j] ?? '');
    if (open[1] === 'bash' || open[1] === 'sh') blocks.push({ line: i + 1, commands: shellCommands(body) });
    i = j;
  }
  return blocks;
}

/** Splits a block's lines into commands; comment lines between commands are dropped. */
export function shellCommands(lines: readonly string[]): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let current = '';
  for (const line of lines) {
    if (current === '') {
      const trimmed = line.trim();
      if (trimmed === '') continue;
      if (trimmed.startsWith('#')) {
        const last = commands.at(-1);
        const answer = /^#\s*->\s*(.*)$/.exec(trimmed)?.[1];
        if (last && answer !== undefined) last.answer = answer;
        continue;
      }
    }
    current = current === '' ? line : `${current}\n${line}`;
    if (!isOpen(current)) {
      commands.push({ text: current });
      current = '';
    }
  }
  if (current !== '') throw new Error(`an unterminated command: ${current}`);
  return commands;
}

/**
 * Whether the shell would read another line: an open quote or command substitution (nested as
 * bash nests them: `"$( ... "..." ... )"`), or a backslash at the end. A `#` outside quotes
 * starts a comment that runs to the end of its line.
 */
export function isOpen(text: string): boolean {
  const stack: Array<'single' | 'double' | 'subst'> = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = stack.at(-1);
    if (top === 'single') {
      if (c === "'") stack.pop();
      continue;
    }
    if (c === '\\') {
      i++;
      continue;
    }
    if (top === 'double') {
      if (c === '"') stack.pop();
      else if (c === '$' && text[i + 1] === '(') {
        stack.push('subst');
        i++;
      }
      continue;
    }
    if (c === '#' && (i === 0 || /\s/.test(text[i - 1] ?? ''))) {
      const end = text.indexOf('\n', i);
      if (end < 0) break;
      i = end;
      continue;
    }
    if (c === "'") stack.push('single');
    else if (c === '"') stack.push('double');
    else if (c === '$' && text[i + 1] === '(') {
      stack.push('subst');
      i++;
    } else if (c === ')' && top === 'subst') stack.pop();
  }
  return stack.length > 0 || /\\\s*$/.test(text);
}

/** `<report ts>`, `<n>`: the placeholders a command holds (Slack mentions like `<@U_BOT>` are not). */
export function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(/<([a-z][a-z ]*)>/g)].map((m) => m[1] ?? ''))];
}

/** What an answer comment binds: `{"ts":"<report ts>"}` binds `report ts` to the answer's `ts`. */
export function answerBindings(answer: string): Array<{ placeholder: string; field: string }> {
  return [...answer.matchAll(/"(\w+)"\s*:\s*"?<([a-z][a-z ]*)>"?/g)].map((m) => ({
    field: m[1] ?? '',
    placeholder: m[2] ?? '',
  }));
}
