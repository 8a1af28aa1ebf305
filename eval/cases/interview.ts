import type { CaseBase } from '../types.ts';

/**
 * Requirements interview personas: the idea a requester brings with `/prd`, how they answer
 * (scripted: the first unused answer whose `when` matches the agent's latest question, else the
 * next fallback), and the rubric the judge holds the PRD to, with the risks its analysis must find.
 */

export interface InterviewCase extends CaseBase {
  workflow: 'requirements_interview';
  idea: string;
  persona: { role: string; answers: { when: string; say: string }[]; fallback: string[] };
  truth: { prdMustHave: string[]; risks: string[] };
}

const interview = (c: Omit<InterviewCase, 'workflow'>): InterviewCase => ({
  workflow: 'requirements_interview',
  ...c,
});

export const INTERVIEW_CASES: InterviewCase[] = [
  interview({
    id: 'interview/team-lunch-planner',
    title: 'A team lunch planner from an office manager',
    idea: 'A tool that plans team lunches',
    persona: {
      role: 'office manager',
      answers: [
        {
          when: 'who|user|team',
          say: 'Teams of 5 to 20 people in one office; I organise it, everyone votes.',
        },
        {
          when: 'diet|allerg|restrict',
          say: 'Vegetarian, vegan and nut allergies must be respected every time.',
        },
        {
          when: 'pay|bill|cost|budget',
          say: 'The company pays up to 15 EUR a head; above that people pay the rest themselves.',
        },
      ],
      fallback: ['It should suggest three places nearby and book the winner.', 'Weekly, on Thursdays.'],
    },
    truth: {
      prdMustHave: [
        'Users: teams of 5-20 in one office',
        'Dietary restrictions (vegetarian, vegan, nut allergies)',
        'The 15 EUR per head company budget',
      ],
      risks: ['Booking depends on restaurants’ availability or an external booking service'],
    },
  }),
  interview({
    id: 'interview/on-call-handover',
    title: 'An on-call handover summary from an SRE lead',
    idea: 'Summarise the on-call week for the next person on call',
    persona: {
      role: 'SRE lead',
      answers: [
        {
          when: 'source|data|where',
          say: 'PagerDuty incidents, the #incidents Slack channel and open Jira tickets labelled ops.',
        },
        { when: 'when|schedule|time', say: 'Every Monday 09:00 at handover.' },
        {
          when: 'sensitive|secret|privacy|access',
          say: 'Incident channels can contain customer names; the summary stays inside the SRE team.',
        },
      ],
      fallback: ['It must list unresolved incidents first.', 'A Slack message with links is enough.'],
    },
    truth: {
      prdMustHave: [
        'Sources: PagerDuty, the incidents channel, Jira ops tickets',
        'Sent Mondays 09:00 at handover',
        'Unresolved incidents listed first',
      ],
      risks: ['Customer data from incident channels leaking beyond the SRE team'],
    },
  }),
  interview({
    id: 'interview/expense-approvals',
    title: 'Expense approvals in Slack from a finance manager',
    idea: 'Approve expense reports from Slack',
    persona: {
      role: 'finance manager',
      answers: [
        {
          when: 'limit|threshold|amount',
          say: 'Managers approve up to 1,000 EUR; above that finance must approve too.',
        },
        {
          when: 'system|integrat|tool',
          say: 'Expenses live in our ERP; approvals must be written back there.',
        },
        { when: 'audit|record|complian', say: 'Auditors need who approved what and when, kept 10 years.' },
      ],
      fallback: ['Receipts must be visible before approving.', 'Rejections need a reason.'],
    },
    truth: {
      prdMustHave: [
        'Two approval levels: manager up to 1,000 EUR, finance above',
        'Write-back to the ERP',
        'Audit trail kept 10 years',
      ],
      risks: [
        'Approving from Slack without seeing the receipt',
        'Failure of the ERP write-back leaving Slack and ERP out of step',
      ],
    },
  }),
  interview({
    id: 'interview/vague-requester',
    title: 'A requester who answers vaguely',
    idea: 'Make onboarding better',
    persona: {
      role: 'HR generalist who is unsure',
      answers: [{ when: 'who|user', say: 'New engineers, mostly. Maybe sales too, not sure.' }],
      fallback: ['I do not know, whatever works.', 'Something simpler than now.', 'Maybe a checklist?'],
    },
    truth: {
      prdMustHave: [
        'Target users: new engineers (sales uncertain)',
        'Open questions recorded instead of invented requirements',
      ],
      risks: ['Scope is unclear: requirements are guesses until validated'],
    },
  }),
  interview({
    id: 'interview/contradicting-requester',
    title: 'A requester who contradicts themselves',
    idea: 'A public status page for our API',
    persona: {
      role: 'product manager',
      answers: [
        { when: 'who|audience|user', say: 'Our customers, publicly, no login.' },
        {
          when: 'incident|detail|show',
          say: 'Show every incident with full internal details and the customers affected.',
        },
        { when: 'update|automat|manual', say: 'Updated automatically from our monitoring.' },
      ],
      fallback: [
        'Actually only logged-in customers should see it.',
        'It must be up even when our cloud region is down.',
      ],
    },
    truth: {
      prdMustHave: [
        'Audience (public vs logged-in customers) named as a contradiction to resolve',
        'Automatic updates from monitoring',
        'Hosted independently of our own region',
      ],
      risks: [
        'Publishing internal details and affected customers publicly',
        'Automatic updates posting false alarms',
      ],
    },
  }),
  interview({
    id: 'interview/data-retention',
    title: 'A data retention job from a compliance officer',
    idea: 'Delete customer data we no longer need',
    persona: {
      role: 'compliance officer',
      answers: [
        {
          when: 'which|data|what',
          say: 'Orders after 10 years, support tickets after 3 years, marketing consent when withdrawn.',
        },
        { when: 'backup|archive', say: 'Backups too, within 35 days of the deletion.' },
        {
          when: 'proof|report|audit',
          say: 'We need a monthly report of what was deleted, without the data itself.',
        },
      ],
      fallback: ['Legal holds must stop deletion.', 'It runs nightly.'],
    },
    truth: {
      prdMustHave: [
        'Retention periods: orders 10 y, tickets 3 y, consent on withdrawal',
        'Backups within 35 days',
        'Legal holds stop deletion',
        'Monthly deletion report without the data',
      ],
      risks: ['Deleting data under a legal hold', 'Irreversible deletion by a wrong rule'],
    },
  }),
];
