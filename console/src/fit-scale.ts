/** The execution graph's "Fit" zoom, apart from the DOM so it is tested alone. */

/**
 * The scale at which a `width` wide graph fits `available` pixels: never above 100% (a small
 * graph is not blown up) and with no floor, so "Fit" always fits (a 1,726 px graph in a 538 px
 * box is drawn at 31%, where a 45% floor once left it scrolling sideways).
 */
export function fitScale(width: number, available: number): number {
  if (!(width > 0) || !(available > 0)) return 1;
  return Math.min(1, available / width);
}

/**
 * Below this scale a graph's state names are too small to read (the bug workflow's 80 states
 * fit 760 px at about 30%): `focus` then draws it at 100% around one state instead.
 */
const READABLE_SCALE = 0.7;

/** The `focus` zoom's scale: the whole graph when it fits readably, else 100%. */
export function focusScale(fit: number): number {
  return fit >= READABLE_SCALE ? fit : 1;
}
