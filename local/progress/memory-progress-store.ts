import type { ProgressRecord, ProgressStore } from '../../lambdas/progress/ports.ts';

/** The progress records in memory (benchmarks and unit tests), with the conditional save's rule. */
export class MemoryProgressStore implements ProgressStore {
  readonly records = new Map<string, ProgressRecord>();

  async load(id: string): Promise<ProgressRecord | undefined> {
    const record = this.records.get(id);
    return record && structuredClone(record);
  }

  async save(id: string, record: ProgressRecord): Promise<void> {
    this.records.set(id, structuredClone(record));
  }

  async saveAt(id: string, record: ProgressRecord, revision: number): Promise<boolean> {
    if ((this.records.get(id)?.revision ?? 0) !== revision) return false;
    this.records.set(id, structuredClone(record));
    return true;
  }
}
