import type { LogRecord } from './records.ts';
import type { MinedTemplate } from './template-groups.ts';
import { type MinerOptions, TemplateMiner } from './template-miner.ts';

/** Templates of a batch of records, and which template each record has. */
export interface MinedRecords {
  /** Every template, most frequent first. */
  templates: MinedTemplate[];
  /** `templateIds[i]` is the template id of record `i`. */
  templateIds: string[];
  /** Template text by id. */
  text: Map<string, string>;
  /** The first message of each template, by id. */
  samples: Map<string, string>;
}

/**
 * Mines the messages of a batch in two passes: all of them through the miner, then each one's
 * final template (templates can still generalize or fork after a message joined them).
 */
export function mineRecords(
  records: readonly Pick<LogRecord, 'message'>[],
  options: MinerOptions = {},
): MinedRecords {
  const miner = new TemplateMiner(options);
  const groups = records.map((r) => miner.add(r.message));
  const templateIds = records.map((r, i) => miner.templateOf(groups[i] as number, r.message).id);
  const templates = miner.templates();
  const samples = new Map<string, string>();
  templateIds.forEach((id, i) => {
    if (!samples.has(id)) samples.set(id, records[i]?.message ?? '');
  });
  return { templates, templateIds, text: new Map(templates.map((t) => [t.id, t.template])), samples };
}
