import type { IncomingMessage, ServerResponse } from 'node:http';
import { headersOf, serveFunctionUrl } from '../sandbox-resources.ts';
import { LOCAL_ACCOUNT } from '../template.ts';
import { verifySignature } from './sigv4.ts';

export { SANDBOX_HISTORY_MCP_PATH } from './paths.ts';

/**
 * The history MCP server's Function URL in the sandbox (docs/mcp.md): the request must carry a
 * SigV4 signature for service `lambda` made with one of the sandbox's access keys, checked by
 * signing it again; the caller Lambda would name in `requestContext.authorizer.iam` is the
 * principal that key belongs to (`SANDBOX_PRINCIPALS`), never something the request says.
 * Then the handler runs in process with the event a Function URL with IAM auth sends.
 */

/** Every sandbox access key's secret: the sandbox's known local credentials, as its handlers use. */
const SANDBOX_SECRET_ACCESS_KEY = 'sandbox';

/** The role the sandbox's configuration lets read the incident investigation's conversations. */
export const SANDBOX_HISTORY_READER_ROLE = `arn:aws:iam::${LOCAL_ACCOUNT}:role/sandbox-incident-reader`;

/**
 * The sandbox's access keys and whom each signs as:
 * - `sandbox`: the key the sandbox's own handlers use (an assumed-role session of role `sandbox`,
 *   which no reader entry names);
 * - `sandbox-incident-reader`: an engineer's session of the role `sandbox-incident-reader`,
 *   which the sandbox's configuration lets read `incident_investigation` conversations;
 * - `sandbox-stranger`: an IAM user no reader entry names.
 */
export const SANDBOX_PRINCIPALS: Readonly<Record<string, { userArn: string; userId: string }>> = {
  sandbox: {
    userArn: `arn:aws:sts::${LOCAL_ACCOUNT}:assumed-role/sandbox/handlers`,
    userId: 'AROASANDBOXHANDLERS:handlers',
  },
  'sandbox-incident-reader': {
    userArn: `arn:aws:sts::${LOCAL_ACCOUNT}:assumed-role/sandbox-incident-reader/engineer`,
    userId: 'AROASANDBOXREADER:engineer',
  },
  'sandbox-stranger': {
    userArn: `arn:aws:iam::${LOCAL_ACCOUNT}:user/sandbox-stranger`,
    userId: 'AIDASANDBOXSTRANGER',
  },
};

/** Serves one request: 403 as Lambda answers an unsigned or wrongly signed one, else the handler's answer. */
export async function serveSignedHistoryMcp(
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
  invoke: (event: unknown) => Promise<unknown>,
): Promise<void> {
  const headers = headersOf(req);
  const url = new URL(req.url ?? '/', `http://${headers.host ?? 'localhost'}`);
  const verified = await verifySignature({ method: req.method ?? 'GET', url, headers, body }, (key) =>
    Object.hasOwn(SANDBOX_PRINCIPALS, key) ? SANDBOX_SECRET_ACCESS_KEY : undefined,
  );
  if (!verified.ok) {
    res
      .writeHead(403, { 'content-type': 'application/json' })
      .end(JSON.stringify({ Message: verified.reason }));
    return;
  }
  const principal = SANDBOX_PRINCIPALS[verified.accessKeyId];
  return serveFunctionUrl(req, res, body, invoke, {
    iam: {
      accessKey: verified.accessKeyId,
      accountId: LOCAL_ACCOUNT,
      callerId: principal?.userId ?? '',
      cognitoIdentity: null,
      principalOrgId: null,
      userArn: principal?.userArn ?? '',
      userId: principal?.userId ?? '',
    },
  });
}

/** The sandbox's history server in its configuration: the reader role may read incident conversations. */
export const SANDBOX_HISTORY_SERVER = {
  enabled: true,
  readers: [{ principal: SANDBOX_HISTORY_READER_ROLE, workflows: ['incident_investigation'] }],
} as const;
