import type { RouterDeps, RouterPorts, Told } from '../../lambdas/kernel/route-types.ts';
import { routerDefaults } from '../../lambdas/kernel/router-defaults.ts';

/** What every test of the Router gives: the records, the executions, the clock, the workflows. */
export type RouterCore = Omit<RouterDeps, keyof RouterPorts>;

/**
 * The Router's dependencies for a test: what it gives, over the kernel's own ports for the
 * rest (`routerDefaults`: no roles, notices that tell no one, stops taken silently).
 */
export function routerDeps(deps: RouterCore & Partial<RouterPorts>): RouterDeps {
  return { ...routerDefaults(deps.clock), ...deps };
}

/** A notice port that keeps what it is given in `into` and says it told someone. */
export function recordIn<N>(into: N[]): (notice: N) => Promise<Told> {
  return async (notice) => {
    into.push(notice);
    return 'told';
  };
}
