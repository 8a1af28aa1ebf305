import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { SUBMIT_TOOL } from '../../lambdas/agents/profile.ts';
import { REQUIREMENTS_INTERVIEW_PROFILES } from '../../lambdas/workflows/requirements-interview/profiles/index.ts';
import {
  PrdWriterResult as PrdSchema,
  type PrdWriterResult,
} from '../../lambdas/workflows/requirements-interview/profiles/prd-writer.ts';
import type { AnalystResult } from '../../lambdas/workflows/requirements-interview/profiles/requirements-analyst.ts';
import {
  type ClarifierResult,
  DEFAULT_CONFIDENCE_THRESHOLD,
} from '../../lambdas/workflows/requirements-interview/profiles/requirements-clarifier.ts';
import { type DemoAgents, playing, submitResult } from '../demo/agents.ts';
import { blocksOf } from '../demo/reply.ts';
import { DEMO_LABEL, excerpt, labelled, type PromptLine, promptLines, userTexts } from '../demo/text.ts';

/**
 * The requirements interview's agents as the offline demo model plays them (the module's
 * `demoAgents`): the three agents' results from
 * fixed rules over what the request holds, the whole interview (the agents resume one session).
 * Everything it writes starts with the demo label.
 *
 * - Clarifier: its confidence follows the number of the requester's answers, not their content:
 *   50 with none, 75 after one, 98 after two, so the default threshold (95) is reached after two
 *   answers, as in the design's example. Below the threshold it asks the 1-3 questions not yet
 *   answered (always at least one, as the profile's check requires).
 * - PRD writer: every section of the PRD, from the idea and the answers.
 * - Analyst: findings, each tied to a PRD section, from the PRD submitted earlier in the session.
 */

export const REQUIREMENTS_DEMO_AGENTS: DemoAgents = playing(REQUIREMENTS_INTERVIEW_PROFILES, {
  requirements_clarifier: (request) => submitResult(demoClarification(request)),
  prd_writer: (request) => submitResult(demoPrd(request)),
  requirements_analyst: (request) => submitResult(demoAnalysis(request)),
});

/** The clarifier's confidence after the requester's `answers`. */
export function demoConfidence(answers: number): number {
  if (answers === 0) return 50;
  return answers === 1 ? 75 : 98;
}

export const DEMO_QUESTIONS = [
  'Who will use it, and what problem does it solve for them today?',
  'What must the first version do, and what should it leave out?',
  'How will you know it works: which measure, with what target?',
] as const;

/** The interview so far: the idea (the first message) and every answer after it. */
interface Interview {
  idea: string;
  answers: PromptLine[];
}

function interviewOf(request: MessageCreateParamsNonStreaming): Interview {
  const [first, ...answers] = userTexts(request).flatMap(promptLines);
  // A slash command's message is its command line: the idea is what follows `/prd`.
  const idea = (first?.text ?? '').replace(/^\/\w+\s*/, '').trim();
  return { idea: idea || 'an idea the requester did not describe', answers };
}

const requesterAnswers = (interview: Interview) =>
  interview.answers.filter((answer) => answer.sender === 'Requester').length;

/** An answer as the PRD quotes it, saying who gave it unless the requester did. */
const quote = (answer: PromptLine) =>
  `"${excerpt(answer.text)}"${answer.sender === 'Requester' ? '' : ` (${answer.sender.toLowerCase()} <@${answer.senderId}>)`}`;

export function demoClarification(request: MessageCreateParamsNonStreaming): ClarifierResult {
  const interview = interviewOf(request);
  const prompt = userTexts(request).at(-1) ?? '';
  const threshold = Number(
    /The confidence threshold is (\d+)/.exec(prompt)?.[1] ?? DEFAULT_CONFIDENCE_THRESHOLD,
  );
  const answered = requesterAnswers(interview);
  const confidence = demoConfidence(answered);
  // The questions after those answered; the last one stays open until the threshold is reached.
  const open = DEMO_QUESTIONS.slice(Math.min(answered, DEMO_QUESTIONS.length - 1)).map(labelled);
  const ready = confidence >= threshold;
  const said = interview.answers.map(quote);
  return {
    confidence,
    confidence_reason: labelled(
      `${answered} answer(s) from the requester so far; this demo's confidence follows their number ` +
        '(50 with none, 75 after one, 98 from two on), not what they say.',
    ),
    understanding: labelled(
      `The idea: "${excerpt(interview.idea, 1_000)}".${said.length > 0 ? ` Answers: ${said.join('; ')}.` : ''}`,
    ).slice(0, 6_000),
    questions: ready ? [] : open,
    open_unknowns: ready ? [] : open,
  };
}

export function demoPrd(request: MessageCreateParamsNonStreaming): PrdWriterResult {
  const { idea, answers } = interviewOf(request);
  const short = excerpt(idea);
  const said = answers.slice(0, 20).map(quote);
  const none = (what: string) => [labelled(`${what} the interview did not name.`)];
  return {
    title: labelled(excerpt(idea, 120)),
    problem: labelled(
      `The requester's idea: "${excerpt(idea, 1_000)}". This PRD is assembled from the interview's own ` +
        'words by the offline demo model, which understands none of them: a person must rewrite it.',
    ),
    goals: [labelled(`Deliver what the idea describes: "${short}".`)],
    non_goals: [labelled('Anything the interview did not mention.')],
    users: said.length > 0 ? [labelled(`As the first answer describes them: ${said[0]}.`)] : none('Users'),
    user_stories: [
      labelled('As the requester, I want what the idea describes, so that the problem above is solved.'),
    ],
    functional_requirements: [
      labelled(`Provide the core of the idea: "${short}".`),
      ...said.map((answer) => labelled(`Honour what the interview said: ${answer}.`)),
    ],
    non_functional_requirements: none('Performance, security or accessibility needs'),
    success_metrics: [
      labelled('To be agreed: the demo cannot turn the interview into a metric with a target.'),
    ],
    scope: {
      in: [labelled('The core of the idea, as above.')],
      out: [labelled('Everything else, for now.')],
    },
    dependencies: none('Dependencies'),
    open_questions: [labelled('Is any of this right? Every section needs a person: a demo wrote it.')],
    milestones: [
      labelled('Review this demo PRD with the team.'),
      labelled('Build a first version of the core.'),
    ],
  };
}

export function demoAnalysis(request: MessageCreateParamsNonStreaming): AnalystResult {
  const prd = submittedPrd(request);
  if (!prd) {
    return {
      summary: labelled('No PRD was found in this session, so there was nothing to analyse.'),
      findings: [
        { kind: 'gap', section: 'Problem', finding: labelled('The PRD is missing: write it first.') },
      ],
    };
  }
  const findings: AnalystResult['findings'] = [];
  if (!prd.success_metrics.some((metric) => /\d/.test(metric))) {
    findings.push({
      kind: 'gap',
      section: 'Success metrics',
      finding: labelled('No metric has a number to reach, so nobody can tell whether the release works.'),
    });
  }
  if (prd.non_functional_requirements.length < 3) {
    findings.push({
      kind: 'risk',
      section: 'Non-functional requirements',
      finding: labelled(
        `Only ${prd.non_functional_requirements.length} non-functional requirement(s): performance, ` +
          'security and reliability surprises come late.',
      ),
    });
  }
  findings.push({
    kind: 'recommendation',
    section: 'Open questions',
    finding: labelled(`Answer the ${prd.open_questions.length} open question(s) before building.`),
  });
  return {
    summary: labelled(
      `Read the PRD "${excerpt(prd.title.replace(DEMO_LABEL, ''), 150)}" and applied fixed checks to its sections: ` +
        `${findings.length} finding(s). No judgement went into them.`,
    ),
    findings,
  };
}

/** The PRD the writer submitted earlier in the session: its last valid `submit_result`. */
function submittedPrd(request: MessageCreateParamsNonStreaming): PrdWriterResult | undefined {
  const submissions = request.messages
    .flatMap((message) => (message.role === 'assistant' ? blocksOf(message) : []))
    .flatMap((block) => (block.type === 'tool_use' && block.name === SUBMIT_TOOL ? [block.input] : []));
  for (const input of submissions.reverse()) {
    const parsed = PrdSchema.safeParse(input);
    if (parsed.success) return parsed.data;
  }
  return undefined;
}
