import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import { ModelFaultSpec, type ModelFaults } from './model/faults.ts';
import { SlackFaultSpec, type SlackFaults } from './slack/faults.ts';

/**
 * `/sandbox/faults`: tell the fake Slack or the model to misbehave for a while.
 * - `POST /sandbox/faults` `{target: 'slack'|'model', kind, method?, forSeconds?|count?, retryAfterSeconds?}`
 *   adds one; `forSeconds` is workflow time, multiplied by the sandbox's time scale like its
 *   waits and retries (at `SANDBOX_TIME_SCALE=0.01`, a 60-second outage lasts 0.6 s);
 * - `GET /sandbox/faults` lists what is in force, and how many model requests came in;
 * - `DELETE /sandbox/faults` ends them all.
 */
export interface FaultRouteDeps {
  slack: SlackFaults;
  model: ModelFaults;
  timeScale: number;
}

export function createFaultRoutes(deps: FaultRouteDeps) {
  const send = (res: ServerResponse, status: number, value: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  const view = () => ({
    slack: deps.slack.list(),
    model: deps.model.list(),
    modelRequests: deps.model.requests,
  });
  return async (req: IncomingMessage, res: ServerResponse, body: string): Promise<boolean> => {
    const method = req.method ?? 'GET';
    if (method === 'GET') {
      send(res, 200, view());
      return true;
    }
    if (method === 'DELETE') {
      deps.slack.clear();
      deps.model.clear();
      send(res, 200, view());
      return true;
    }
    if (method !== 'POST') return false;
    let raw: unknown;
    try {
      raw = JSON.parse(body);
    } catch {
      send(res, 400, { error: 'the body is not JSON' });
      return true;
    }
    const { target, forSeconds, ...rest } = (raw ?? {}) as { target?: unknown; forSeconds?: unknown };
    const scaled = typeof forSeconds === 'number' ? { forSeconds: forSeconds * deps.timeScale } : {};
    const spec =
      target === 'slack'
        ? SlackFaultSpec.safeParse({
            ...rest,
            ...(forSeconds === undefined ? {} : { forSeconds }),
            ...scaled,
          })
        : target === 'model'
          ? ModelFaultSpec.safeParse({
              ...rest,
              ...(forSeconds === undefined ? {} : { forSeconds }),
              ...scaled,
            })
          : undefined;
    if (spec === undefined) {
      send(res, 400, { error: "target must be 'slack' or 'model'" });
      return true;
    }
    if (!spec.success) {
      send(res, 400, { error: z.prettifyError(spec.error) });
      return true;
    }
    if (target === 'slack') deps.slack.add(spec.data as z.input<typeof SlackFaultSpec>);
    else deps.model.add(spec.data as z.input<typeof ModelFaultSpec>);
    send(res, 201, view());
    return true;
  };
}
