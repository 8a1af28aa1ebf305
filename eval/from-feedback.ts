import * as z from 'zod';
import { FeedbackExportLine } from '../lambdas/feedback/model.ts';
import { WORKFLOWS } from './types.ts';

/**
 * Feedback becomes cases: each down-voted answer of the feedback export (one JSON object a
 * line) becomes the skeleton of a case of its workflow, in the cases' shape, with what the
 * conversation gives filled in (the request that started it, the answer people rejected and
 * why) and every truth field a person must establish marked `TODO`. A skeleton is not a case
 * until a person fills those in and adds it to its workflow's list in eval/cases/.
 */

/** A line of the export (its one schema, lambdas/feedback/model.ts), of a workflow the evals know. */
export const FeedbackLine = FeedbackExportLine.extend({ workflow: z.enum(WORKFLOWS) });
export type FeedbackLine = z.infer<typeof FeedbackLine>;

export const TODO = 'TODO';

export interface Skeleton {
  id: string;
  workflow: FeedbackLine['workflow'];
  title: string;
  /** Where it came from: the rejected answer and why. */
  source: {
    conversationId: string;
    answerKind: string;
    answer: string;
    reason?: string;
    by: string;
    at: string;
  };
  /** The fields a person must complete before it is a case. */
  todo: string[];
  [field: string]: unknown;
}

const PREFIX: Record<FeedbackLine['workflow'], string> = {
  incident_investigation: 'incident',
  bug_investigation: 'bug',
  issue_pipeline: 'pipeline',
  requirements_interview: 'interview',
  channel_conversations: 'channel',
};

function fieldsOf(line: FeedbackLine): { fields: Record<string, unknown>; todo: string[] } {
  switch (line.workflow) {
    case 'incident_investigation':
      return {
        fields: {
          request: line.request,
          scenario: { seed: 1, deploys: [], effects: [], lines: [] },
          truth: {
            outcome: `${TODO}: root_cause or inconclusive`,
            component: [TODO],
            change: { kinds: [TODO], names: [TODO] },
            evidence: [TODO],
            mustCheck: [{ tool: TODO, service: TODO }],
          },
        },
        todo: [
          'scenario (the telemetry as it was)',
          'truth.outcome',
          'truth.component',
          'truth.change',
          'truth.evidence (root_cause) or truth.mustCheck (inconclusive)',
        ],
      };
    case 'bug_investigation':
      return {
        fields: {
          repo: `${TODO}: webshop or invoicing`,
          plant: [{ file: TODO, find: TODO, replace: TODO }],
          report: line.request,
          details: TODO,
          truth: { file: TODO, near: TODO, hiddenTests: { [TODO]: TODO } },
        },
        todo: ['repo', 'plant', 'details', 'truth.file', 'truth.near', 'truth.hiddenTests'],
      };
    case 'issue_pipeline':
      return {
        fields: {
          repo: `${TODO}: webshop or invoicing`,
          plant: [{ file: TODO, find: TODO, replace: TODO }],
          issue: { title: line.request.split('\n')[0] ?? line.request, body: line.request },
          truth: { hiddenTests: { [TODO]: TODO }, reviewRubric: [TODO] },
        },
        todo: ['repo', 'plant', 'truth.hiddenTests', 'truth.reviewRubric'],
      };
    case 'requirements_interview':
      return {
        fields: {
          idea: line.request,
          persona: { role: TODO, answers: [{ when: TODO, say: TODO }], fallback: TODO },
          truth: { prdMustHave: [TODO], risks: [TODO] },
        },
        todo: ['persona', 'truth.prdMustHave', 'truth.risks'],
      };
    case 'channel_conversations':
      return {
        fields: {
          steps: [
            {
              user: line.by,
              text: line.request,
              expect: `${TODO}: answer or silent`,
              mentions: [TODO],
              rubric: TODO,
            },
          ],
        },
        todo: ['steps[0].expect', 'steps[0].mentions', 'steps[0].rubric', 'the messages before it, if any'],
      };
  }
}

export interface Conversion {
  skeletons: Skeleton[];
  /** Up-votes and lines already converted (same conversation and answer). */
  skipped: number;
  /** Lines that are not feedback lines, with their 1-based number and why. */
  errors: string[];
}

export function skeletonsFrom(jsonl: string): Conversion {
  const skeletons: Skeleton[] = [];
  const seen = new Set<string>();
  const errors: string[] = [];
  let skipped = 0;
  jsonl.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      errors.push(`line ${index + 1}: not JSON`);
      return;
    }
    const line = FeedbackLine.safeParse(parsed);
    if (!line.success) {
      errors.push(
        `line ${index + 1}: ${line.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
      return;
    }
    const f = line.data;
    const key = `${f.conversationId}:${f.answer.ts}`;
    if (f.vote !== 'down' || seen.has(key)) {
      skipped++;
      return;
    }
    seen.add(key);
    const { fields, todo } = fieldsOf(f);
    const slug = f.conversationId
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .slice(0, 60);
    skeletons.push({
      id: `${PREFIX[f.workflow]}/feedback-${slug}-${f.answer.ts.replace(/\D/g, '')}`,
      workflow: f.workflow,
      title: `${TODO}: ${f.reason ?? `a down-voted ${f.answer.kind}`}`.slice(0, 200),
      ...fields,
      source: {
        conversationId: f.conversationId,
        answerKind: f.answer.kind,
        answer: f.answer.text,
        ...(f.reason ? { reason: f.reason } : {}),
        by: f.by,
        at: f.at,
      },
      todo: ['title', ...todo],
    });
  });
  return { skeletons, skipped, errors };
}
