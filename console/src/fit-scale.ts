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
