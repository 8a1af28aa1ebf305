import { fitScale, focusScale } from './fit-scale.ts';
import type { State } from './state.ts';

/** The execution graph's scroller: zoom to fit (or a scale), and follow the state running now. */

/** Sizes the graph in `container` for the zoom: `fit` shrinks it to the scroller's inner width. */
export function fitGraph(container: Element, zoom: State['zoom']): void {
  const scroller = container.querySelector<HTMLElement>('.graph-scroll');
  const graph = scroller?.querySelector<SVGSVGElement>('svg.graph');
  if (!scroller || !graph || scroller.clientWidth === 0) return;
  const width = Number(graph.getAttribute('width'));
  const height = Number(graph.getAttribute('height'));
  // clientWidth is inside the border and excludes a vertical scrollbar, which a tall graph has.
  const fit = fitScale(width, scroller.clientWidth);
  const scale = zoom === 'fit' ? fit : zoom === 'focus' ? focusScale(fit) : zoom;
  // Rounded down: a graph one pixel too wide would bring back the sideways scrollbar.
  graph.style.width = `${Math.floor(width * scale)}px`;
  graph.style.height = `${Math.floor(height * scale)}px`;
}

/**
 * Scrolls the state running now into the middle of the graph's scroller when it is not the
 * one scrolled to last (`last`); returns the state scrolled to.
 */
export function scrollToCurrentState(container: Element, last: string | undefined): string | undefined {
  const scroller = container.querySelector<HTMLElement>('.graph-scroll');
  // The state running now, or where the execution ended (graph-view marks it `data-focus`).
  const current =
    scroller?.querySelector<SVGGElement>('g.node[data-status="current"]') ??
    scroller?.querySelector<SVGGElement>('g.node[data-focus="true"]');
  const name = current?.dataset.state;
  // A hidden panel has no layout to scroll; try again once it is shown.
  if (!scroller || !current || name === last || scroller.clientWidth === 0) return last;
  const box = current.getBoundingClientRect();
  const frame = scroller.getBoundingClientRect();
  scroller.scrollTop += box.top - frame.top - (scroller.clientHeight - box.height) / 2;
  scroller.scrollLeft += box.left - frame.left - (scroller.clientWidth - box.width) / 2;
  return name;
}
