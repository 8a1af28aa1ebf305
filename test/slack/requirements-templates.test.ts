import { describe, expect, it } from 'vitest';
import { renderTemplate } from '../../lambdas/slack/templates/index.ts';
import { REQUIREMENTS_INTERVIEW_TEMPLATES } from '../../lambdas/workflows/requirements-interview/templates.ts';

describe('the requirements interview templates', () => {
  it('shows the questions as a numbered list with the confidence and the threshold', () => {
    const rendered = renderTemplate(REQUIREMENTS_INTERVIEW_TEMPLATES, {
      name: 'requirements_questions',
      data: {
        result: {
          confidence: 50,
          confidenceReason: 'Users unknown',
          questions: ['Who uses it?', 'Why <now>?'],
        },
        threshold: 95,
      },
    });

    expect(rendered.text).toContain('*Confidence: 50%* (95% needed to write the PRD) — Users unknown');
    expect(rendered.text).toContain('1. Who uses it?\n2. Why &lt;now&gt;?');
    expect(rendered.file).toBeUndefined();
  });

  it('renders the analysis grouped by kind, each finding with its PRD section, and attaches it', () => {
    const rendered = renderTemplate(REQUIREMENTS_INTERVIEW_TEMPLATES, {
      name: 'requirements_analysis',
      data: {
        title: 'AI project manager',
        result: {
          summary: 'Mostly complete.',
          findings: [
            { kind: 'risk', section: 'Dependencies', finding: 'Calendar API limits' },
            { kind: 'gap', section: 'Users', finding: 'No admin persona' },
          ],
        },
      },
    });

    expect(rendered.file?.filename).toBe('analysis-ai-project-manager.md');
    expect(rendered.file?.content).toContain('## Gaps\n\n- **Users**: No admin persona');
    expect(rendered.file?.content).toContain('## Risks\n\n- **Dependencies**: Calendar API limits');
    expect(rendered.file?.content).toContain('## Contradictions\n\n_None._');
    expect(rendered.blocks?.map((block) => block.type)).toEqual([
      'header',
      'section',
      'section',
      'section',
      'section',
      'section',
      'context',
      'context_actions',
    ]);
    expect(rendered.blocks?.at(-1)).toMatchObject({ block_id: 'feedback:analysis' });
  });

  it('keeps a long PRD within Slack limits: sections cut to 3,000 characters', () => {
    const markdown = `# PRD: Big\n\n## Problem\n\n${'x'.repeat(5_000)}\n`;

    const rendered = renderTemplate(REQUIREMENTS_INTERVIEW_TEMPLATES, {
      name: 'requirements_prd',
      data: { result: { title: 'Big', markdown } },
    });

    const section = rendered.blocks?.[1] as { text: { text: string } };
    expect(rendered.blocks?.at(-1)).toMatchObject({ type: 'context_actions', block_id: 'feedback:prd' });
    expect(section.text.text.length).toBeLessThanOrEqual(3_000);
    expect(rendered.file?.content).toBe(markdown);
  });
});
