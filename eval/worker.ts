import { writeFileSync } from 'node:fs';
import '../local/polyfills.ts';
import { type Job, runCase } from './run-case.ts';

/**
 * A worker process runs one case: the sandbox sets process-wide state (the handlers'
 * environment), so two cases never share a process. Argument: the job as JSON and the path to
 * write the result to.
 */
const [jobJson, resultPath] = process.argv.slice(2);
if (!jobJson || !resultPath) {
  console.error('usage: worker.ts <job json> <result path>');
  process.exit(2);
}
const result = await runCase(JSON.parse(jobJson) as Job);
writeFileSync(resultPath, JSON.stringify(result));
// Handlers' SDK clients keep sockets and timers; the case is over.
process.exit(0);
