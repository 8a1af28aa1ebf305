/** The execution graph as SVG: states as boxes coloured by how they ran, transitions as arrows. */

import { h, svg } from './dom.ts';
import type { ExecutionPath } from './execution-path.ts';
import { type AslDefinition, edgeKey, type GraphLayout, layoutGraph, type Point } from './graph-layout.ts';

const layouts = new Map<string, GraphLayout>();

/** The layout of a definition, computed once per definition (every refresh fetches it anew). */
function layoutOf(asl: AslDefinition): GraphLayout {
  const key = JSON.stringify(asl);
  let layout = layouts.get(key);
  if (!layout) {
    layout = layoutGraph(asl);
    layouts.set(key, layout);
  }
  return layout;
}

/** A loop: straight runs with rounded corners. */
function loopData(points: Point[]): string {
  const r = 8;
  const [first, ...rest] = points;
  if (!first) return '';
  let d = `M${first.x},${first.y}`;
  rest.forEach((point, i) => {
    const next = rest[i + 1];
    if (!next) {
      d += ` L${point.x},${point.y}`;
      return;
    }
    const previous = i === 0 ? first : (rest[i - 1] as Point);
    const inDx = Math.sign(point.x - previous.x);
    const inDy = Math.sign(point.y - previous.y);
    const outDx = Math.sign(next.x - point.x);
    const outDy = Math.sign(next.y - point.y);
    d += ` L${point.x - inDx * r},${point.y - inDy * r} Q${point.x},${point.y} ${point.x + outDx * r},${point.y + outDy * r}`;
  });
  return d;
}

function pathData(points: Point[]): string {
  const [first, ...rest] = points;
  if (!first) return '';
  let d = `M${first.x},${first.y}`;
  let previous = first;
  for (const point of rest) {
    const dy = (point.y - previous.y) / 2;
    d +=
      dy === 0
        ? ` L${point.x},${point.y}`
        : ` C${previous.x},${previous.y + dy} ${point.x},${point.y - dy} ${point.x},${point.y}`;
    previous = point;
  }
  return d;
}

const SHAPE: Record<string, string> = {
  Choice: 'choice',
  Wait: 'wait',
  Succeed: 'end',
  Fail: 'end',
  Pass: 'pass',
};

export interface GraphViewOptions {
  selected?: string;
  onSelect(state: string): void;
}

export function renderGraph(
  asl: AslDefinition,
  path: ExecutionPath,
  options: GraphViewOptions,
): SVGSVGElement {
  const layout = layoutOf(asl);
  const marker = (id: string, cls: string) =>
    svg(
      'marker',
      {
        id,
        viewBox: '0 0 10 10',
        refX: 9,
        refY: 5,
        markerWidth: 8,
        markerHeight: 8,
        markerUnits: 'userSpaceOnUse',
        orient: 'auto-start-reverse',
        class: cls,
      },
      svg('path', { d: 'M0,0 L10,5 L0,10 z' }),
    );
  const edges = [
    ...layout.edges,
    // A collapsed Catch is drawn once the execution took it, straight to its target.
    ...layout.collapsed
      .filter((e) => path.taken.has(edgeKey(e.from, e.to)))
      .map((e) => {
        const from = layout.nodes.find((n) => n.name === e.from);
        const to = layout.nodes.find((n) => n.name === e.to);
        if (!from || !to) return undefined;
        const lane = Math.max(from.x + from.width, to.x + to.width) + 14;
        return {
          ...e,
          back: true,
          points: [
            { x: from.x + from.width, y: from.y + from.height / 2 },
            { x: lane, y: from.y + from.height / 2 },
            { x: lane, y: to.y + to.height / 2 },
            { x: to.x + to.width, y: to.y + to.height / 2 },
          ],
        };
      })
      .filter((e) => e !== undefined),
  ];
  const edgeElements = edges.map((edge) => {
    const taken = path.taken.has(edgeKey(edge.from, edge.to));
    const classes = [
      'edge',
      edge.kinds.includes('catch') && edge.kinds.length === 1 ? 'catch' : '',
      taken ? 'taken' : '',
      edge.back ? 'back' : '',
    ]
      .filter(Boolean)
      .join(' ');
    return svg(
      'path',
      {
        class: classes,
        d: edge.back ? loopData(edge.points) : pathData(edge.points),
        'marker-end': `url(#${taken ? 'arrow-taken' : 'arrow'})`,
      },
      svg('title', null, `${edge.from} → ${edge.to} (${edge.kinds.join(', ')})`),
    );
  });
  const nodeElements = layout.nodes.map((node) => {
    const run = path.states.get(node.name);
    const status = path.current === node.name ? 'current' : (run?.status ?? 'not-run');
    const shape = SHAPE[node.type] ?? 'task';
    const rx = shape === 'end' ? node.height / 2 : shape === 'choice' ? 4 : 6;
    const details = [
      `${node.name} (${node.type})`,
      run ? `entered ${run.entered}×${run.failures ? `, ${run.failures} failure(s)` : ''}` : 'not run',
      node.collapsedCatches.length ? `catches into: ${node.collapsedCatches.join(', ')}` : '',
    ].filter(Boolean);
    return svg(
      'g',
      {
        class: `node ${shape} ${status}${options.selected === node.name ? ' selected' : ''}`,
        'data-state': node.name,
        'data-status': status,
        // Where the graph opens (the state running now, or where the execution ended).
        ...((path.current ?? path.last) === node.name ? { 'data-focus': 'true' } : {}),
        transform: `translate(${node.x},${node.y})`,
        tabindex: 0,
        role: 'button',
        onclick: () => options.onSelect(node.name),
        onkeydown: (event) => {
          if ((event as KeyboardEvent).key === 'Enter') options.onSelect(node.name);
        },
      },
      svg('title', null, details.join('\n')),
      svg('rect', { width: node.width, height: node.height, rx, ry: rx }),
      shape === 'choice'
        ? svg('path', { class: 'glyph', d: `M10,${node.height / 2} l5,-5 l5,5 l-5,5 z` })
        : null,
      shape === 'wait' ? svg('circle', { class: 'glyph', cx: 14, cy: node.height / 2, r: 4.5 }) : null,
      svg(
        'text',
        {
          x: node.width / 2 + (shape === 'choice' || shape === 'wait' ? 9 : 0),
          y: node.height / 2,
          'dominant-baseline': 'central',
          'text-anchor': 'middle',
        },
        node.name,
      ),
      node.collapsedCatches.length
        ? svg('circle', { class: 'catch-dot', cx: node.width - 5, cy: node.height - 5, r: 2.5 })
        : null,
      run && run.entered > 1
        ? svg(
            'g',
            { class: 'count', transform: `translate(${node.width},0)` },
            svg('rect', { x: -9, y: -8, width: 18, height: 14, rx: 7 }),
            svg(
              'text',
              { x: 0, y: -1, 'text-anchor': 'middle', 'dominant-baseline': 'central' },
              `×${run.entered}`,
            ),
          )
        : null,
    );
  });
  return svg(
    'svg',
    {
      class: 'graph',
      'data-testid': 'graph',
      width: layout.width,
      height: layout.height,
      viewBox: `0 0 ${layout.width} ${layout.height}`,
      'data-current': path.current ?? '',
    },
    svg('defs', null, marker('arrow', 'arrow'), marker('arrow-taken', 'arrow taken')),
    svg('g', { class: 'edges' }, edgeElements),
    svg('g', { class: 'nodes' }, nodeElements),
  );
}

export function graphLegend(): HTMLElement {
  const item = (cls: string, label: string) => h('span', { class: `legend-item ${cls}` }, h('i'), label);
  return h(
    'div',
    { class: 'legend' },
    item('current', 'In progress'),
    item('succeeded', 'Succeeded'),
    item('caught', 'Caught error'),
    item('failed', 'Failed'),
    item('not-run', 'Not run'),
  );
}
