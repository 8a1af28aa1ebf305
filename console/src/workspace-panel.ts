/**
 * The conversation's workspace (workspace-facts.ts): its work branches and their commits, each
 * build with every check's exit code and the tail of its output, and its pull request, or why
 * none was opened.
 */

import { h } from './dom.ts';
import { clock } from './format.ts';
import type { BuildFact, CheckFact, WorkspaceFacts } from './workspace-facts.ts';

function checkStatus(check: CheckFact): { label: string; cls: string } {
  if (check.skipped) return { label: 'skipped', cls: 'skipped' };
  if (check.exitCode === undefined) return { label: 'did not finish', cls: 'bad' };
  return check.exitCode === 0
    ? { label: 'exit 0', cls: 'good' }
    : { label: `exit ${check.exitCode}`, cls: 'bad' };
}

function buildItem(build: BuildFact, index: number): HTMLElement {
  return h(
    'li',
    {
      class: `build ${build.passed ? 'good' : 'bad'}`,
      'data-testid': 'build',
      'data-attempt': String(build.attempt ?? index + 1),
      'data-passed': String(build.passed),
    },
    h(
      'div',
      { class: 'build-head' },
      h('strong', null, `Build attempt ${build.attempt ?? index + 1}`),
      h('span', { class: `badge ${build.passed ? 'status-resolved' : 'status-failed'}` }, build.status),
      build.buildId ? h('span', { class: 'sub', title: build.buildId }, build.buildId) : null,
    ),
    build.checks.length === 0
      ? h('p', { class: 'empty' }, 'No check reported.')
      : h(
          'ol',
          { class: 'checks' },
          build.checks.map((check) => {
            const status = checkStatus(check);
            return h(
              'li',
              { class: `check ${status.cls}`, 'data-testid': 'check', 'data-check': check.name },
              h(
                'details',
                // The failing checks open: their output is what the reader came for.
                status.cls === 'bad' ? { open: true } : null,
                h(
                  'summary',
                  null,
                  h('span', { class: 'check-name' }, check.name),
                  h('span', { class: 'check-exit', 'data-testid': 'check-exit' }, status.label),
                ),
                h('pre', { class: 'check-tail', 'data-testid': 'check-tail' }, check.tail || '(no output)'),
              ),
            );
          }),
        ),
  );
}

export function workspaceSection(facts: WorkspaceFacts): HTMLElement {
  const { branches, builds, pulls, outcome } = facts;
  return h(
    'section',
    { class: 'workspace', 'data-testid': 'workspace', 'aria-label': 'Workspace' },
    h(
      'div',
      { class: 'section-head' },
      h('h2', null, 'Workspace'),
      h(
        'span',
        { class: 'sub' },
        `${branches.length} ${branches.length === 1 ? 'branch' : 'branches'} · ${builds.length} ${builds.length === 1 ? 'build' : 'builds'}`,
      ),
    ),
    pulls.length > 0
      ? h(
          'div',
          { class: 'pull-requests' },
          pulls.map((p) =>
            h(
              'p',
              { class: 'pull-request', 'data-testid': 'pull-request' },
              '⇄ ',
              h(
                'a',
                {
                  href: p.url,
                  target: '_blank',
                  rel: 'noopener noreferrer',
                  'data-testid': 'pull-request-link',
                },
                `${p.repository}#${p.number}`,
              ),
              ` ${p.title} `,
              h('span', { class: 'badge' }, p.draft ? `draft · ${p.state}` : p.state),
            ),
          ),
        )
      : outcome && !outcome.opened
        ? h(
            'p',
            { class: 'pull-request none', 'data-testid': 'pull-request-none' },
            `No pull request: ${outcome.reason ?? 'none was opened'}`,
          )
        : null,
    branches.map((b) =>
      h(
        'div',
        { class: 'branch', 'data-testid': 'branch', 'data-branch': b.name },
        h(
          'div',
          { class: 'branch-head' },
          h(
            'a',
            {
              href: `/sandbox/github/repos/${b.repository.split('/').map(encodeURIComponent).join('/')}`,
              target: '_blank',
              rel: 'noopener noreferrer',
              title: `${b.repository} in the sandbox's GitHub`,
            },
            h('code', { class: 'branch-name' }, b.name),
          ),
          h('span', { class: 'sub' }, ` in ${b.repository}, ${b.aheadBy} ahead of ${b.base}`),
        ),
        b.commits.length === 0
          ? h('p', { class: 'empty' }, 'No commits yet.')
          : h(
              'ol',
              { class: 'commits' },
              b.commits.map((c) =>
                h(
                  'li',
                  { class: 'commit', 'data-testid': 'commit', 'data-sha': c.sha },
                  h('code', { class: 'sha', title: c.sha }, c.sha.slice(0, 7)),
                  h('span', { class: 'commit-message' }, c.message.split('\n')[0] ?? ''),
                  h(
                    'span',
                    { class: 'commit-meta' },
                    `${c.author} · ${Number.isNaN(Date.parse(c.date)) ? c.date : clock(new Date(c.date))}`,
                  ),
                ),
              ),
            ),
      ),
    ),
    builds.length > 0 ? h('ol', { class: 'builds' }, builds.map(buildItem)) : null,
  );
}
