/**
 * A synthesis process that stays up and serves several sandboxes: `POST /synthesize` with
 * `{ config }` answers the default modules' template (200), or `{ error: { name, message } }`
 * (422) for a configuration the stack rejects. A fresh process spends most of a synthesis
 * loading aws-cdk-lib and warming up (about 6-8 s of CPU); once warm, another configuration
 * takes about one. The test run starts one (test/global-setup.ts) and hands its address to
 * every sandbox as `SANDBOX_SYNTH_URL` (local/template-cache.ts); without it each sandbox that
 * misses the cache synthesizes in a process of its own (local/synth-template.ts).
 * Prints `listening <url>` once it accepts requests; stops with its parent's stdin.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SlackAgentsConfigInput } from '../infra/config.ts';
import { readBody } from './read-body.ts';

type Synthesize = (config: SlackAgentsConfigInput | undefined) => unknown;
let synthesize: Promise<Synthesize> | undefined;

/** aws-cdk-lib is loaded on the first request, so starting the server costs nothing until then. */
function synthesizer(): Promise<Synthesize> {
  synthesize ??= Promise.all([import('../infra/synth.ts'), import('../statemachines/index.ts')]).then(
    ([{ synthesizeTemplate }, { WORKFLOW_MODULES }]) =>
      (config) =>
        synthesizeTemplate({ modules: WORKFLOW_MODULES, ...(config ? { config } : {}) }),
  );
  return synthesize;
}

const server = createServer((req, res) => {
  void (async () => {
    if (req.method !== 'POST' || req.url !== '/synthesize') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const body = await readBody(req);
    try {
      const { config } = JSON.parse(body) as { config?: SlackAgentsConfigInput | null };
      const template = (await synthesizer())(config ?? undefined);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(template));
    } catch (error) {
      const { name, message } = error instanceof Error ? error : new Error(String(error));
      res
        .writeHead(422, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { name, message } }));
    }
  })();
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`listening http://127.0.0.1:${port}\n`);
});
// The parent closing our stdin (or exiting) ends the server.
process.stdin.resume();
process.stdin.on('end', () => server.close(() => process.exit(0)));
