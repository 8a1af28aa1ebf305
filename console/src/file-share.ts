/**
 * Files the bot shared with a message (the requirements interview's PRD and analysis, as
 * Markdown): a card per file with its title, name and size, the first lines as a preview, and
 * a link to the whole file. A message that is only a file share has no text, and would
 * otherwise show as an empty message.
 */

import type { FileShare } from './api.ts';
import { h } from './dom.ts';
import { fileSize, previewText } from './file-preview.ts';

export function renderFileShare(file: FileShare): HTMLElement {
  return h(
    'figure',
    { class: 'file-share', 'data-testid': 'file-share', 'data-file': file.id },
    h(
      'figcaption',
      { class: 'file-head' },
      h('span', { class: 'file-icon', 'aria-hidden': 'true' }, '📄'),
      h(
        'span',
        { class: 'file-names' },
        h('strong', { class: 'file-title' }, file.title),
        h('span', { class: 'file-meta' }, `${file.filename} · ${fileSize(file.size)}`),
      ),
      h(
        'a',
        {
          class: 'file-open',
          'data-testid': 'file-open',
          href: file.url,
          target: '_blank',
          rel: 'noopener noreferrer',
        },
        'Open',
      ),
    ),
    h('pre', { class: 'file-preview', 'data-testid': 'file-preview' }, previewText(file)),
  );
}
