/**
 * Links the templates put in messages. Built from values the workflow passes (ARNs, ids),
 * never from model output, and checked, so nothing in them can break out of a `<url|label>`.
 */

const EXECUTION_ARN = /^arn:aws[a-z-]*:states:([a-z0-9-]+):\d{12}:execution:[^\s|<>]+$/;
const CONSOLE = 'https://console.aws.amazon.com/states/home';

/**
 * Where execution links lead instead of the AWS console: the sandbox sets it to its own web
 * console (`SANDBOX_CONSOLE_URL`), whose `#execution=<name>` opens the conversation that runs
 * it. Unset in a deployed stack.
 */
export const SANDBOX_CONSOLE_URL_VARIABLE = 'SANDBOX_CONSOLE_URL';

/**
 * The console page of an execution. With `sandboxConsoleUrl` (by default the
 * `SANDBOX_CONSOLE_URL` variable), the sandbox's own console: a sandbox's executions exist
 * nowhere else. Otherwise the Step Functions console: with a real execution ARN, in the ARN's
 * region; anything else still gets the generic console URL, with the text URL-encoded.
 */
export function executionConsoleUrl(
  executionArn: string,
  sandboxConsoleUrl: string | undefined = process.env[SANDBOX_CONSOLE_URL_VARIABLE],
): string {
  if (sandboxConsoleUrl !== undefined && sandboxConsoleUrl !== '') {
    const name = executionArn.slice(executionArn.lastIndexOf(':') + 1);
    return `${sandboxConsoleUrl.replace(/\/+$/, '')}/#execution=${encodeURIComponent(name)}`;
  }
  const region = EXECUTION_ARN.exec(executionArn)?.[1];
  const encoded = encodeURIComponent(executionArn);
  if (region === undefined) return `${CONSOLE}#/v2/executions/details/${encoded}`;
  return `https://${region}.console.aws.amazon.com/states/home?region=${region}#/v2/executions/details/${executionArn}`;
}

/** A mrkdwn link; the URL must not contain `|` or `>` (they would end it early). */
export function link(url: string, label: string): string {
  return `<${url.replace(/[|>]/g, encodeURIComponent)}|${label.replace(/[|<>]/g, '')}>`;
}

/** An http(s) URL the model reported (a pull request, say), or undefined when it is not one. */
export function safeHttpUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}
