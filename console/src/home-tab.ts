/**
 * The App Home tab of a chosen user, as Slack would show it: the sandbox sends
 * `app_home_opened` for them, the bot publishes their Home (`views.publish`), and this panel
 * shows the published view. Its buttons send the real `block_actions` of a Home press, so an
 * approval decided here goes through the approval path like one pressed on its message.
 */

import { renderMessageBody } from './blocks.ts';
import { h } from './dom.ts';
import { channelName, type State, userName } from './state.ts';
import { surfacesApi } from './surfaces-api.ts';

const POLL_MS = 300;
const WAIT_MS = 15_000;

export function createHomeTab(state: State): { button: HTMLElement; panel: HTMLElement } {
  const select = h('select', { 'data-testid': 'home-user', 'aria-label': 'Home of' }) as HTMLSelectElement;
  const status = h('p', { class: 'muted', 'data-testid': 'home-status' });
  const body = h('div', { class: 'home-view', 'data-testid': 'home-view' });
  const close = h('button', { type: 'button', class: 'close', 'aria-label': 'Close the App Home' }, '×');
  const openButton = h('button', { type: 'button', 'data-testid': 'home-open' }, 'Open Home');
  const panel = h(
    'section',
    { class: 'home-tab', 'data-testid': 'home-tab', hidden: true, 'aria-label': 'App Home' },
    h('header', null, h('h2', null, 'App Home'), h('label', null, 'of ', select), openButton, close),
    status,
    body,
  );

  let shownHash: string | undefined;
  async function show(user: string, previousHash?: string): Promise<void> {
    status.textContent = `Opening the Home of ${userName(state, user)}…`;
    // A press's decision republishes the Home by itself; opening the tab publishes it.
    if (previousHash === undefined) await surfacesApi.openHome(user);
    const deadline = Date.now() + WAIT_MS;
    while (Date.now() < deadline) {
      const home = await surfacesApi.home(user).catch(() => undefined);
      if (home !== undefined && home.id !== previousHash) {
        shownHash = home.id;
        status.textContent = `Published for ${userName(state, user)}.`;
        body.replaceChildren(
          renderMessageBody(
            { text: '', blocks: home.view.blocks },
            {
              userName: (id) => userName(state, id),
              channelName: (id) => channelName(state, id),
              onAction: (action) => void press(user, action),
            },
          ),
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    status.textContent = 'The Home was not published: see the sandbox log.';
  }

  async function press(user: string, action: { action_id: string; value?: string; block_id?: string }) {
    if (action.block_id === undefined) return;
    status.textContent = 'Pressed: the Home is published again once the press is taken.';
    await surfacesApi.homeAction({
      user,
      block_id: action.block_id,
      action_id: action.action_id,
      ...(action.value === undefined ? {} : { value: action.value }),
    });
    await show(user, shownHash ?? '');
  }

  openButton.addEventListener('click', () => void show(select.value));
  close.addEventListener('click', () => {
    panel.hidden = true;
  });
  const button = h(
    'button',
    { type: 'button', class: 'home-button', 'data-testid': 'home-button' },
    'App Home',
  );
  button.addEventListener('click', () => {
    const users = state.users.filter((u) => u.id !== state.botUserId);
    select.replaceChildren(
      ...users.map((u) =>
        h('option', { value: u.id, selected: u.id === state.postAs }, u.realName ?? u.name),
      ),
    );
    panel.hidden = !panel.hidden;
    if (!panel.hidden) void show(select.value);
  });
  return { button, panel };
}
