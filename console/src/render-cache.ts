import { type Child, replaceChildren } from './dom.ts';

/** Re-rendering only what changed: each element remembers the key it was last built from. */

const rendered = new WeakMap<Element, string>();

/** Re-renders `element`'s children when `key` changed; returns whether it did. */
export function update(element: Element, key: string, build: () => Child[]): boolean {
  if (rendered.get(element) === key) return false;
  rendered.set(element, key);
  replaceChildren(element, build());
  return true;
}

/** A scrolling message list: new content keeps the reader's place, or follows the bottom if they were there. */
export function updateList(
  body: HTMLElement,
  listId: string,
  key: string,
  build: () => Child[],
  forceBottom: boolean,
): void {
  const fresh = body.dataset.list !== listId;
  const atBottom = body.scrollHeight - body.scrollTop - body.clientHeight < 48;
  const top = body.scrollTop;
  if (!update(body, `${listId}\n${key}`, build) && !forceBottom) return;
  body.dataset.list = listId;
  if (fresh || atBottom || forceBottom) body.scrollTop = body.scrollHeight;
  else body.scrollTop = top;
}
