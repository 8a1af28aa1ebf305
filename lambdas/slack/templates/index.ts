import type * as z from 'zod';
import { SlackPostInput } from '../../kernel/tasks.ts';
import { UnknownTemplateError } from '../errors.ts';
import type { RenderedMessage } from './types.ts';

export type { RenderedFile } from './types.ts';

/**
 * Message templates SlackPost renders (`SlackPostInput.template`). A state machine passes a
 * template's name and its data (an agent's result, ids); the text, the Block Kit blocks and
 * every Slack limit are handled in code with tests, instead of in `States.Format`. Each
 * workflow declares its own templates (lambdas/workflows/<workflow>/templates) and hands them
 * to its SlackPost function (`createSlackPostHandler`); the kernel's SlackPost has none.
 */
export interface TemplateSpec<Data> {
  /** The data's schema, checked when the task's input is parsed. */
  readonly data: z.ZodType<Data>;
  render(data: Data): RenderedMessage;
}

/** Templates by name (lower snake case, e.g. `bug_findings`). */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds templates of any data.
export type TemplateRegistry = Readonly<Record<string, TemplateSpec<any>>>;

const TEMPLATE_NAME = /^[a-z][a-z0-9_]*$/;

/** Declares a workflow's templates, checking their names. */
export function defineTemplates<const R extends TemplateRegistry>(templates: R): R {
  for (const name of Object.keys(templates)) {
    if (!TEMPLATE_NAME.test(name)) throw new Error(`template name "${name}" must be lower snake case`);
  }
  return templates;
}

/**
 * SlackPostInput whose template, when it has one, is one of `templates` with valid data: a
 * task naming another workflow's template, or with bad data, fails as an invalid input.
 */
export function slackPostInputFor(templates: TemplateRegistry) {
  return SlackPostInput.superRefine((input, ctx) => {
    if (input.template === undefined) return;
    const spec = templates[input.template.name];
    if (spec === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['template', 'name'],
        message: `unknown template "${input.template.name}" (known here: ${Object.keys(templates).join(', ') || 'none'})`,
      });
      return;
    }
    const parsed = spec.data.safeParse(input.template.data);
    if (parsed.success) return;
    for (const issue of parsed.error.issues) {
      ctx.addIssue({ code: 'custom', path: ['template', 'data', ...issue.path], message: issue.message });
    }
  });
}

/**
 * Renders a template of `templates` with its data (validated again here, so defaults and
 * limits of its schema apply).
 * @throws UnknownTemplateError when `templates` has no such template
 */
export function renderTemplate(
  templates: TemplateRegistry,
  template: { readonly name: string; readonly data: unknown },
): RenderedMessage {
  const spec = templates[template.name];
  if (spec === undefined) throw new UnknownTemplateError(template.name, Object.keys(templates));
  return spec.render(spec.data.parse(template.data));
}

/** No templates: the kernel's own SlackPost posts texts and blocks only. */
export const NO_TEMPLATES: TemplateRegistry = {};
