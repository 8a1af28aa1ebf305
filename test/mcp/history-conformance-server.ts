import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveHistoryMcp } from '../../lambdas/history-mcp/function-url.ts';
import type { Conversation, StoredMessage } from '../../lambdas/kernel/model.ts';
import { DEFAULT_REDACTION } from '../../lambdas/redaction/config.ts';
import { readBody } from '../../local/read-body.ts';
import { serveFunctionUrl } from '../../local/sandbox-resources.ts';
import { LOCAL_ACCOUNT } from '../../local/template.ts';

/**
 * The history MCP server under `@modelcontextprotocol/conformance`: the handler on a local port
 * without SigV4 (every request is a fixed reader's, as if Lambda had checked its signature), a
 * conversation in memory, and the conformance CLI run against it, one scenario at a time.
 *
 * The suite tests an "everything" server: most scenarios call tools, resources and prompts that
 * server has (`test_simple_text`, `resources/read`...). A server with one tool can meet only these:
 */
export const HISTORY_CONFORMANCE_SCENARIOS = [
  /** initialize answers with a valid structure (protocol version, capabilities, server info). */
  'server-initialize',
  /** ping answers. */
  'ping',
  /** tools/list lists tools with valid names, schemas and annotations. */
  'tools-list',
] as const;
// Not run, and why:
// - tools-call-* (simple-text, image, audio, embedded-resource, mixed-content, with-logging, error,
//   with-progress, sampling, elicitation) and elicitation-*: they call the everything server's
//   tools; simple-text and error even "pass" on the tool-not-found error, which proves nothing.
// - resources-*, prompts-*, completion-complete, logging-set-level: capabilities this server
//   does not declare (a read-only history needs none of them).
// - server-sse-multiple-streams: needs a session; this server is stateless.
// - dns-rebinding-protection: guards a local server a browser can reach; this one is reached
//   only through a Function URL that requires a SigV4 signature, whose Host is the URL's own.

/** The conversation the local server holds. */
export const CONFORMANCE_CONVERSATION = 'inc-conformance';

const MESSAGES: StoredMessage[] = [
  {
    conversationId: CONFORMANCE_CONVERSATION,
    ts: '1732190000.000100',
    channel: 'C_INCIDENTS',
    senderType: 'reporter',
    senderId: 'U_RESPONDER',
    messageType: 'message',
    text: 'checkout returns 502',
    receivedAt: '2024-11-21T11:53:20.000Z',
  },
];

/** The handler on 127.0.0.1 at a free port, every request from one reader of incident conversations. */
export async function startUnsignedHistoryMcp(): Promise<{ url: string; close(): Promise<void> }> {
  const userArn = `arn:aws:sts::${LOCAL_ACCOUNT}:assumed-role/conformance/run`;
  const deps = {
    readers: [{ principal: LOCAL_ACCOUNT, workflows: ['incident_investigation'] }],
    redaction: DEFAULT_REDACTION,
    audit: () => {},
    store: {
      getConversation: async (id: string) =>
        // The server reads a conversation's workflow alone.
        id === CONFORMANCE_CONVERSATION
          ? ({ id, workflow: 'incident_investigation' } as Conversation)
          : undefined,
      listMessages: async (id: string) => (id === CONFORMANCE_CONVERSATION ? MESSAGES : []),
    },
  };
  const iam = {
    accessKey: 'conformance',
    accountId: LOCAL_ACCOUNT,
    callerId: 'conformance',
    userArn,
    userId: 'conformance',
  };
  const server = createServer((req, res) => {
    readBody(req)
      .then((body) =>
        serveFunctionUrl(req, res, body, (event) => serveHistoryMcp(event as never, deps), { iam }),
      )
      .catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface ConformanceCheck {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** Runs one scenario of the conformance CLI against `url`: its checks, as the CLI wrote them. */
export async function runConformanceScenario(url: string, scenario: string): Promise<ConformanceCheck[]> {
  const cli = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/dist/index.js');
  const shim = fileURLToPath(new URL('./conformance-node20.mjs', import.meta.url));
  const out = mkdtempSync(join(tmpdir(), 'history-conformance-'));
  try {
    await new Promise<void>((resolve) => {
      // A failed check exits 1: the checks file says which, so the exit code is not the verdict.
      execFile(
        process.execPath,
        ['--import', shim, cli, 'server', '--url', url, '--scenario', scenario, '-o', out],
        () => resolve(),
      );
    });
    const [run] = readdirSync(out);
    if (run === undefined) throw new Error(`the conformance CLI wrote no result for ${scenario}`);
    return JSON.parse(readFileSync(join(out, run, 'checks.json'), 'utf8')) as ConformanceCheck[];
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
