import type { HistoryReader } from './config.ts';

/**
 * Who called, as a Lambda Function URL with `AuthType: AWS_IAM` reports it after checking the
 * request's SigV4 signature (`requestContext.authorizer.iam`), and which workflows' conversations
 * that caller may read.
 */
export interface Caller {
  /** `arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION`, `arn:aws:iam::ACCOUNT:user/NAME`... */
  userArn: string;
  accountId: string;
  /** The principal's unique id (`AROA...:SESSION`), for the log. */
  callerId?: string;
}

const IAM_ARN = /^arn:([\w-]+):iam::(\d{12}):(role|user)\/(?:.*\/)?([^/]+)$/;
const ASSUMED_ROLE_ARN = /^arn:([\w-]+):sts::(\d{12}):assumed-role\/([^/]+)\/[^/]+$/;

/**
 * Whether `principal` (as configured) names `caller`:
 * - an account id names every principal of that account;
 * - a user ARN names that user, path and all (a user's ARN carries its path);
 * - a role ARN names its assumed-role sessions: a session's ARN carries the role's name but not
 *   its path, and a role's name is unique in its account whatever its path.
 */
function principalNames(principal: string, caller: Caller): boolean {
  if (/^\d{12}$/.test(principal)) return caller.accountId === principal;
  const configured = IAM_ARN.exec(principal);
  if (configured === null) return false;
  const [, partition, account, kind, name] = configured;
  if (kind === 'user') return caller.userArn === principal;
  const session = ASSUMED_ROLE_ARN.exec(caller.userArn);
  return session !== null && session[1] === partition && session[2] === account && session[3] === name;
}

/** The workflows `caller` may read, over every entry naming it; undefined when none does. */
export function readableWorkflows(
  readers: readonly HistoryReader[],
  caller: Caller,
): ReadonlySet<string> | undefined {
  const entries = readers.filter((reader) => principalNames(reader.principal, caller));
  if (entries.length === 0) return undefined;
  return new Set(entries.flatMap((reader) => reader.workflows));
}
