import { describe, expect, it } from 'vitest';
import { SlackPostInput } from '../../lambdas/kernel/tasks.ts';
import { renderTemplate, slackPostInputFor } from '../../lambdas/slack/templates/index.ts';
import { executionConsoleUrl } from '../../lambdas/slack/templates/links.ts';
import { FIELD_TEXT_LIMIT, SECTION_TEXT_LIMIT, truncate } from '../../lambdas/slack/templates/text.ts';
import type { Block } from '../../lambdas/slack/templates/types.ts';
import { BUG_INVESTIGATION_TEMPLATES } from '../../lambdas/workflows/bug-investigation/templates/index.ts';

/** Slack's limit on a header block's text (stated here, not imported: the value is what this test checks). */
const HEADER_TEXT_LIMIT = 150;

/** The bug investigation's SlackPost input: a template of its own, with valid data. */
const BugPostInput = slackPostInputFor(BUG_INVESTIGATION_TEMPLATES);

/** A template of the bug investigation's, its data checked as its SlackPost checks it. */
const SlackTemplate = {
  parse: (template: { name: string; data: Record<string, unknown> }) =>
    BugPostInput.parse({ conversationId: 'c-1', channel: 'C0SUMMARIES', template }).template ?? template,
};

const EXECUTION_ARN = 'arn:aws:states:eu-west-1:123456789012:execution:BugInvestigation:bug-1';

const result = {
  action: 'post_findings',
  sessionId: 'session-1',
  summary: 'The export button calls a removed endpoint.',
  rootCause: 'The v1 export route was deleted in the last release.',
  confidence: 85,
  severity: 'high',
};

function findings(overrides: Record<string, unknown> = {}) {
  return renderTemplate(
    BUG_INVESTIGATION_TEMPLATES,
    SlackTemplate.parse({
      name: 'bug_findings',
      data: { result: { ...result, ...overrides }, executionArn: EXECUTION_ARN },
    }),
  );
}

/** Every text of a message's blocks, with the limit Slack sets for where it sits. */
function textsWithLimits(blocks: readonly Block[] = []): { text: string; limit: number }[] {
  return blocks.flatMap((block) => {
    const own = block.text as { text: string } | undefined;
    const fields = (block.fields as { text: string }[] | undefined) ?? [];
    // The feedback buttons' elements carry labels of their own, not a text.
    const elements = ((block.elements as { text?: unknown }[] | undefined) ?? []).filter(
      (element): element is { text: string } => typeof element.text === 'string',
    );
    const limit = block.type === 'header' ? HEADER_TEXT_LIMIT : SECTION_TEXT_LIMIT;
    return [
      ...(own ? [{ text: own.text, limit }] : []),
      ...fields.map((field) => ({ text: field.text, limit: FIELD_TEXT_LIMIT })),
      ...elements.map((element) => ({ text: element.text, limit: SECTION_TEXT_LIMIT })),
    ];
  });
}

describe('the bug_findings template', () => {
  it('shows a header, the summary, root cause, confidence and severity, and the console link', () => {
    const { text, blocks = [] } = findings();

    expect(blocks.map((block) => block.type)).toEqual([
      'header',
      'section',
      'section',
      'context',
      'context_actions',
    ]);
    expect(blocks[4]).toMatchObject({
      block_id: 'feedback:findings',
      elements: [{ type: 'feedback_buttons', action_id: 'answer_feedback' }],
    });
    expect(blocks[1]).toEqual({
      type: 'section',
      text: { type: 'mrkdwn', text: '*Summary*\nThe export button calls a removed endpoint.' },
    });
    expect(blocks[2]?.fields).toEqual([
      { type: 'mrkdwn', text: '*Root cause*\nThe v1 export route was deleted in the last release.' },
      { type: 'mrkdwn', text: '*Confidence*\n85%' },
      { type: 'mrkdwn', text: '*Severity*\n:large_orange_circle: high' },
    ]);
    expect(JSON.stringify(blocks[3])).toContain(
      `<https://eu-west-1.console.aws.amazon.com/states/home?region=eu-west-1#/v2/executions/details/${EXECUTION_ARN}|`,
    );
    expect(text).toBe(
      'Bug findings (high severity, 85% confidence): The export button calls a removed endpoint.',
    );
  });

  it('keeps every text within Slack limits when the summary is 4,000 characters', () => {
    const long = `${'word '.repeat(800)}🐛🐛`;
    expect(long.length).toBeGreaterThanOrEqual(4_000);

    const { text, blocks } = findings({ summary: long, rootCause: long, error: long });

    for (const { text: blockText, limit } of textsWithLimits(blocks)) {
      expect(blockText.length).toBeLessThanOrEqual(limit);
    }
    expect(text.length).toBeLessThanOrEqual(3_000);
    expect(JSON.stringify(blocks)).toContain('…');
  });

  it('escapes what the agent wrote, so it cannot ping a channel or hide a link', () => {
    const { text, blocks } = findings({ summary: 'Fixed <!channel> & see <https://evil.example|docs>' });

    expect(JSON.stringify(blocks)).toContain(
      'Fixed &lt;!channel&gt; &amp; see &lt;https://evil.example|docs&gt;',
    );
    expect(text).not.toContain('<!channel>');
  });

  it('shows the fix with its pull request link, and drops a link that is not http(s)', () => {
    const withPr = findings({
      fix: { description: 'Restored the route', pullRequestUrl: 'https://github.com/acme/app/pull/7' },
    });
    const withScript = findings({
      fix: { description: 'Restored the route', pullRequestUrl: 'javascript:alert(1)' },
    });

    expect(JSON.stringify(withPr.blocks)).toContain('<https://github.com/acme/app/pull/7|Pull request>');
    expect(JSON.stringify(withScript.blocks)).not.toContain('javascript:');
  });

  it('says so when the agent found no root cause or gave no severity', () => {
    const { blocks = [] } = findings({ rootCause: undefined, severity: undefined });

    expect(JSON.stringify(blocks[2])).toContain('Not found yet');
    expect(JSON.stringify(blocks[2])).toContain('*Severity*\\nunknown');
  });

  it('refuses data without a summary: nothing would be worth posting', () => {
    expect(() =>
      SlackTemplate.parse({
        name: 'bug_findings',
        data: { result: { severity: 'low' }, executionArn: EXECUTION_ARN },
      }),
    ).toThrow(/summary/);
  });
});

describe('the bug_escalation template', () => {
  const escalation = (data: Record<string, unknown> = {}) =>
    renderTemplate(
      BUG_INVESTIGATION_TEMPLATES,
      SlackTemplate.parse({
        name: 'bug_escalation',
        data: {
          result: { ...result, action: 'escalate', severity: 'critical' },
          onCallGroupId: 'S0ONCALL',
          executionArn: EXECUTION_ARN,
          findingsChannel: 'C0SUMMARIES',
          ...data,
        },
      }),
    );

  it('mentions the on-call group in the text and the blocks, with the severity and summary', () => {
    const { text, blocks } = escalation();

    expect(text).toBe(
      '<!subteam^S0ONCALL> Bug escalation (critical severity): The export button calls a removed endpoint.',
    );
    expect(JSON.stringify(blocks)).toContain(
      '<!subteam^S0ONCALL> a bug needs a developer: *:red_circle: critical* severity',
    );
    expect(JSON.stringify(blocks)).toContain('Findings in <#C0SUMMARIES>');
  });

  it('shows the error of an escalation that came from a failure', () => {
    const { blocks } = escalation({ result: { ...result, error: 'model API answered 529 three times' } });

    expect(JSON.stringify(blocks)).toContain('*Error*\\nmodel API answered 529 three times');
  });

  it('refuses an on-call group id that is not one (it goes into a mention unescaped)', () => {
    expect(() =>
      SlackTemplate.parse({
        name: 'bug_escalation',
        data: { result, onCallGroupId: 'S1> <!channel', executionArn: EXECUTION_ARN },
      }),
    ).toThrow(/user group id/);
  });

  it('keeps its fallback text within the limit for a 4,000-character summary', () => {
    const { text, blocks } = escalation({ result: { ...result, summary: 'x'.repeat(4_000) } });

    expect(text.length).toBeLessThanOrEqual(3_000);
    for (const { text: blockText, limit } of textsWithLimits(blocks))
      expect(blockText.length).toBeLessThanOrEqual(limit);
  });
});

describe('the bug_question template', () => {
  it('asks the agent question, escaped', () => {
    const rendered = renderTemplate(BUG_INVESTIGATION_TEMPLATES, {
      name: 'bug_question',
      data: { result: { clarificationQuestion: 'Does it fail for <all> users?' } },
    });

    expect(rendered).toEqual({ text: ':question: Does it fail for &lt;all&gt; users?' });
  });

  it('asks a generic question when the agent gave none, so the reporter can still answer', () => {
    const rendered = renderTemplate(BUG_INVESTIGATION_TEMPLATES, {
      name: 'bug_question',
      data: { result: {} },
    });

    expect(rendered.text).toMatch(/^:question: Could you tell me more\?/);
  });
});

describe('truncate', () => {
  it('never splits an emoji in half', () => {
    const cut = truncate(`ab${'🐛'.repeat(10)}`, 6);

    expect(cut.length).toBeLessThanOrEqual(6);
    expect(cut).toBe('ab🐛…');
  });

  it('never leaves half an escape behind', () => {
    expect(truncate('abc &amp; def', 7)).toBe('abc …');
  });

  it('leaves text within the limit as it is', () => {
    expect(truncate('short', 5)).toBe('short');
  });
});

describe('executionConsoleUrl', () => {
  it('encodes what is not an execution ARN instead of linking it raw', () => {
    expect(executionConsoleUrl('not an arn|x>', undefined)).toBe(
      'https://console.aws.amazon.com/states/home#/v2/executions/details/not%20an%20arn%7Cx%3E',
    );
  });

  it("links a sandbox execution to the sandbox's console instead of the AWS console", () => {
    const arn = 'arn:aws:states:us-east-1:000000000000:execution:BugInvestigation:bug-C0BUGS-1-000100';
    expect(executionConsoleUrl(arn, 'http://127.0.0.1:3000/')).toBe(
      'http://127.0.0.1:3000/#execution=bug-C0BUGS-1-000100',
    );
    expect(executionConsoleUrl(arn, undefined)).toBe(
      `https://us-east-1.console.aws.amazon.com/states/home?region=us-east-1#/v2/executions/details/${arn}`,
    );
  });
});

describe('SlackPostInput with a template', () => {
  const base = { conversationId: 'c-1', channel: 'C0SUMMARIES' };
  const template = { name: 'bug_question', data: { result: {} } };

  it('takes a template instead of a text', () => {
    expect(SlackPostInput.parse({ ...base, template }).template?.name).toBe('bug_question');
  });

  it('refuses both a text and a template, or neither', () => {
    expect(() => SlackPostInput.parse({ ...base, text: 'hi', template })).toThrow(/either/);
    expect(() => SlackPostInput.parse(base)).toThrow(/either/);
  });

  it('refuses blocks beside a template (the template renders its own)', () => {
    expect(() => SlackPostInput.parse({ ...base, template, blocks: [{ type: 'divider' }] })).toThrow(
      /renders its own blocks/,
    );
  });

  it('refuses a template its SlackPost does not know, or bad data for one it knows', () => {
    const messages = (template: { name: string; data: Record<string, unknown> }) =>
      BugPostInput.safeParse({ ...base, template }).error?.issues.map((issue) => issue.message);
    expect(messages({ name: 'bug_poem', data: {} })).toEqual([
      expect.stringMatching(/^unknown template "bug_poem"/),
    ]);
    expect(messages({ name: 'requirements_prd', data: { result: {} } })).toEqual([
      expect.stringMatching(/^unknown template "requirements_prd"/),
    ]);
    const bad = BugPostInput.safeParse({ ...base, template: { name: 'bug_findings', data: {} } });
    expect(bad.error?.issues.map((issue) => issue.path)).toContainEqual(['template', 'data', 'result']);
  });
});
