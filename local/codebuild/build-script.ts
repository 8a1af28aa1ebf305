/**
 * The bash script one buildspec command runs in. Each command is a process of its own (in
 * namespaces of its own, isolation.ts) whose exit status the emulator reads itself when it
 * ends: nothing the command prints or writes decides whether it succeeded. As with a version
 * 0.2 buildspec, where a `cd` or an `export` stays in effect, the script first takes the
 * variables and working directory the previous command left (files in the build's `$TMPDIR`)
 * and leaves its own for the next one. Those files belong to the build, as CodeBuild's own
 * environment files do: a command can change what the next command of its build sees, never
 * what the emulator records.
 */

/** The script: `bash -c COMMAND_SCRIPT bash '<the command>'`. */
export const COMMAND_SCRIPT = `set +e
__cb_env="$TMPDIR/.codebuild-env"
__cb_pwd="$TMPDIR/.codebuild-pwd"
# The shell's variables (exported or not, bash's own and the emulator's left out) and directory.
__cb_save() {
  for __cb_v in $(compgen -v); do
    case $__cb_v in
      BASH*|PPID|SHLVL|SECONDS|RANDOM|SRANDOM|LINENO|EUID|UID|PIPESTATUS|FUNCNAME|GROUPS|HISTCMD|OPTIND|OPTERR|EPOCHSECONDS|EPOCHREALTIME|_|__cb_*|PWD|OLDPWD|COLUMNS|LINES|CODEBUILD_BUILD_SUCCEEDING) ;;
      *) declare -p "$__cb_v" 2>/dev/null ;;
    esac
  done | sed -e 's/^declare -- /declare -g /' -e 's/^declare -\\([a-zA-Z]*\\) /declare -g\\1 /' > "$__cb_env"
  pwd > "$__cb_pwd"
}
cd "$CODEBUILD_SRC_DIR" || exit 1
[ -f "$__cb_env" ] && . "$__cb_env" 2>/dev/null
[ -f "$__cb_pwd" ] && cd "$(cat "$__cb_pwd")"
trap '__cb_rc=$?; __cb_save; exit $__cb_rc' EXIT
eval "$1"
`;

/** How a command ended, as the emulator saw its process end. */
export type CommandEnd = { code: number; signal?: undefined } | { code?: undefined; signal: string };

/** CodeBuild's reason for a failed command ("exit status 2"; a killed one names its signal). */
export function failureReason(end: CommandEnd): string {
  return end.signal === undefined ? `exit status ${end.code}` : `killed by signal ${end.signal}`;
}
