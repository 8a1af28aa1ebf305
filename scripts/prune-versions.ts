/**
 * `npm run prune-versions`: lists, and with `--delete` deletes, the state machine versions and
 * Lambda versions of a deployed stack that no execution can still call (infra/versions/prune-plan.ts
 * decides; docs/operations.md, "Upgrading and rolling back", says when to run it).
 *
 *   npm run prune-versions -- --stack SlackAgents                 # what it would delete, and why each is kept
 *   npm run prune-versions -- --stack SlackAgents --delete        # deletes them
 */
import { parseArgs } from 'node:util';
import { applyPlan, defaultVersionClients, readInventory } from '../infra/versions/aws-inventory.ts';
import { planPruning } from '../infra/versions/prune-plan.ts';

const USAGE = `usage: npm run prune-versions -- --stack <stack name> [--margin-hours <hours>] [--delete]
  --stack         the deployed stack whose state machines and functions are looked at
  --margin-hours  added to the longest wait of a definition before a version counts as old (default 24)
  --delete        delete what the plan marks (without it, only the plan is printed)`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { stack: { type: 'string' }, 'margin-hours': { type: 'string' }, delete: { type: 'boolean' } },
    strict: true,
  });
  const margin = Number(values['margin-hours'] ?? '24');
  if (values.stack === undefined || !Number.isFinite(margin) || margin < 0) {
    process.stderr.write(`${USAGE}\n`);
    return 1;
  }
  const clients = defaultVersionClients();
  const plan = planPruning(await readInventory(values.stack, clients), new Date(), margin);
  for (const decision of [...plan.stateMachineVersions, ...plan.functionVersions]) {
    process.stdout.write(`${decision.delete ? 'delete' : 'keep  '} ${decision.arn}: ${decision.reason}\n`);
  }
  if (values.delete !== true) {
    process.stdout.write('Nothing deleted: run again with --delete to delete what is marked.\n');
    return 0;
  }
  for (const line of await applyPlan(plan, clients)) process.stdout.write(`${line}\n`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`prune-versions: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
