import { type ParsedBuildspec, PHASE_NAMES } from './buildspec.ts';

/**
 * The bash script one build runs: the phases' commands one after the other, each in a
 * subshell of one build shell whose variables and working directory carry over to
 * the next command and phase (as with a version 0.2 buildspec, where a `cd` or an `export`
 * stays in effect),
 * with CodeBuild's `[Container]` lines in the log around each command and phase, and a
 * status line per phase on file descriptor 3 for the emulator (`START <PHASE>`,
 * `END <PHASE> <SUCCEEDED|FAILED> <exit status> <failed command index>`).
 *
 * Phase transitions as CodeBuild's: a failed INSTALL or PRE_BUILD (with `on-failure: ABORT`,
 * the default) skips the later command phases; a failed BUILD still runs POST_BUILD, with
 * CODEBUILD_BUILD_SUCCEEDING=0; a phase stops at its first failing command.
 */

/** Single-quotes a string for bash. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

const PRELUDE = `set +e
__cb_log() { printf '[Container] %s %s\\n' "$(date -u '+%Y/%m/%d %H:%M:%S.%6N')" "$*"; }
# The shell's variables (exported or not, bash's own left out) and directory after a command.
__cb_save() {
  for __cb_v in $(compgen -v); do
    case $__cb_v in
      BASH*|PPID|SHLVL|SECONDS|RANDOM|SRANDOM|LINENO|EUID|UID|PIPESTATUS|FUNCNAME|GROUPS|HISTCMD|OPTIND|OPTERR|EPOCHSECONDS|EPOCHREALTIME|_|__cb_*|PWD|OLDPWD|COLUMNS|LINES) ;;
      *) declare -p "$__cb_v" 2>/dev/null ;;
    esac
  done | sed -e 's/^declare -- /declare -g /' -e 's/^declare -\\([a-zA-Z]*\\) /declare -g\\1 /' > "$__cb_env"
  pwd > "$__cb_pwd"
}
__cb_phase() {
  __cb_name=$1; shift
  printf 'START %s\\n' "$__cb_name" >&3
  __cb_log "Entering phase $__cb_name"
  __cb_index=0
  for __cb_cmd in "$@"; do
    __cb_log "Running command $__cb_cmd"
    # A subshell per command, so \`exit 2\` fails that command, not the build's shell; its
    # variables and working directory are carried to the next command.
    rm -f "$__cb_env" "$__cb_pwd"
    ( trap '__cb_rc=$?; __cb_save; exit $__cb_rc' EXIT; eval "$__cb_cmd" )
    __cb_rc=$?
    [ -f "$__cb_env" ] && . "$__cb_env" 2>/dev/null
    [ -f "$__cb_pwd" ] && cd "$(cat "$__cb_pwd")"
    if [ "$__cb_rc" -ne 0 ]; then
      __cb_log "Command did not exit successfully $__cb_cmd exit status $__cb_rc"
      __cb_log "Phase complete: $__cb_name State: FAILED"
      __cb_log "Phase context status code: COMMAND_EXECUTION_ERROR Message: Error while executing command: $__cb_cmd. Reason: exit status $__cb_rc"
      printf 'END %s FAILED %s %s\\n' "$__cb_name" "$__cb_rc" "$__cb_index" >&3
      return 1
    fi
    __cb_index=$((__cb_index + 1))
  done
  __cb_log "Phase complete: $__cb_name State: SUCCEEDED"
  printf 'END %s SUCCEEDED 0 -1\\n' "$__cb_name" >&3
  return 0
}
__cb_abort=0
__cb_env="$TMPDIR/.codebuild-env"
__cb_pwd="$TMPDIR/.codebuild-pwd"
export CODEBUILD_BUILD_SUCCEEDING=1
cd "$CODEBUILD_SRC_DIR" || exit 1
`;

export function buildScript(buildspec: ParsedBuildspec): string {
  const lines = [PRELUDE];
  for (const name of PHASE_NAMES) {
    const phase = buildspec.phases[name] ?? { commands: [], onFailure: 'ABORT' as const };
    const aborts = phase.onFailure === 'ABORT' && (name === 'install' || name === 'pre_build');
    const onFail = `export CODEBUILD_BUILD_SUCCEEDING=0${aborts ? '; __cb_abort=1' : ''}`;
    const call = ['__cb_phase', name.toUpperCase(), ...phase.commands.map(shellQuote)].join(' ');
    lines.push(`if [ "$__cb_abort" -eq 0 ]; then ${call} || { ${onFail}; }; fi`);
  }
  lines.push('exit 0', '');
  return lines.join('\n');
}

export type ScriptEvent =
  | { kind: 'start'; phase: string }
  | { kind: 'end'; phase: string; status: 'SUCCEEDED' | 'FAILED'; exitStatus: number; commandIndex: number };

/** One status line of descriptor 3, or undefined for anything else. */
export function parseScriptEvent(line: string): ScriptEvent | undefined {
  const start = /^START ([A-Z_]+)$/.exec(line);
  if (start?.[1]) return { kind: 'start', phase: start[1] };
  const end = /^END ([A-Z_]+) (SUCCEEDED|FAILED) (\d+) (-?\d+)$/.exec(line);
  if (end?.[1] && end[2]) {
    return {
      kind: 'end',
      phase: end[1],
      status: end[2] as 'SUCCEEDED' | 'FAILED',
      exitStatus: Number(end[3]),
      commandIndex: Number(end[4]),
    };
  }
  return undefined;
}
