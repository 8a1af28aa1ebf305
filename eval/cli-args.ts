import { parseArgs } from 'node:util';

/**
 * `npm run eval`'s command line: its options, its usage text, and parsing that answers `--help`
 * with the usage and a mistyped option with one line naming the nearest option (never a stack trace).
 */

export const EVAL_OPTIONS = {
  workflow: { type: 'string', default: 'all' },
  model: { type: 'string' },
  provider: { type: 'string', default: 'anthropic' },
  iterations: { type: 'string', default: '1' },
  cases: { type: 'string' },
  concurrency: { type: 'string', default: '1' },
  record: { type: 'string' },
  replay: { type: 'string' },
  timeout: { type: 'string' },
  'time-scale': { type: 'string', default: '0.002' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const EVAL_USAGE = `usage: npm run eval -- [options]   (docs/evals.md)

  --workflow NAME     all, incident_investigation, bug_investigation, issue_pipeline,
                      requirements_interview or channel_conversations (default all)
  --cases GLOBS       comma-separated globs of case ids (incident/*, bug/webshop-*)
  --model ID          the model id the stack is configured with (needs a model: a key or a URL)
  --provider NAME     anthropic or bedrock (default anthropic)
  --iterations N      runs per case (default 1)
  --concurrency N     cases running at once (default 1)
  --record DIR        keep each case's model and judge exchanges in DIR
  --replay DIR        answer every model and judge call from DIR
  --timeout SECONDS   per case (default 240 offline and replayed, 900 live)
  --time-scale X      the sandbox's time scale for waits for people (default 0.002)
  --out DIR           where report.json and report.md go (default eval-results/<time>/)
  -h, --help          this text

The model: --replay if given; else ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY when set; else the
offline demo model. The judge: EVAL_JUDGE_MODEL, EVAL_JUDGE_BASE_URL, EVAL_JUDGE_API_KEY,
EVAL_JUDGE=off.`;

type Parsed = ReturnType<
  typeof parseArgs<{ options: typeof EVAL_OPTIONS; allowPositionals: false }>
>['values'];

export type EvalArgs =
  | { kind: 'run'; values: Parsed }
  | { kind: 'help'; text: string }
  | { kind: 'error'; message: string };

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number;
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length] as number;
}

/** The option nearest to `name` (by edit distance). */
export function nearestOption(name: string): string {
  const bare = name.replace(/^-+/, '').split('=')[0] ?? '';
  const [best] = Object.keys(EVAL_OPTIONS).sort((a, b) => distance(bare, a) - distance(bare, b));
  return `--${best}`;
}

export function parseEvalArgs(argv: readonly string[]): EvalArgs {
  try {
    const { values } = parseArgs({ args: [...argv], options: EVAL_OPTIONS, allowPositionals: false });
    return values.help ? { kind: 'help', text: EVAL_USAGE } : { kind: 'run', values };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = error instanceof Error ? error.message : String(error);
    const option = /'(-[^']+)'/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option)
      return {
        kind: 'error',
        message: `unknown option ${option}; did you mean ${nearestOption(option)}? (--help lists them)`,
      };
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
      return {
        kind: 'error',
        message: `${message.split('.')[0]}; options take the form --name value (--help lists them)`,
      };
    return { kind: 'error', message: `${message.split('\n')[0]} (--help lists the options)` };
  }
}
