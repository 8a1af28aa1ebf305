/**
 * A layered (Sugiyama-style) layout of a state machine's states, top to bottom like the Step
 * Functions console: edges from Next, Choices, Default and Catch; cycles broken at the edges
 * a depth-first walk from StartAt finds going back; states placed on the longest path from
 * StartAt; long edges routed through dummy points; the order within a layer by barycenters
 * (the sweep with the fewest crossings is kept); x by averaging neighbours under a minimum
 * separation. Pure: no DOM, so it is tested in Node.
 *
 * A Catch that many states share (every Task catching into "Mark failed") would draw a fan of
 * long arrows across the whole graph, so such edges are collapsed: not drawn, listed on their
 * source state instead, and drawn only once the execution took them.
 */

export type {
  AslDefinition,
  AslState,
  EdgeKind,
  GraphLayout,
  LaidEdge,
  LaidNode,
  LayoutOptions,
  Point,
  StateEdge,
} from './graph-model.ts';
export { asAsl, edgeKey } from './graph-model.ts';

import {
  type AslDefinition,
  type GraphLayout,
  type LaidEdge,
  type LaidNode,
  type LayoutOptions,
  type StateEdge,
  stateEdges,
} from './graph-model.ts';

interface Vertex {
  id: number;
  name?: string;
  layer: number;
  width: number;
  x: number;
  /** Neighbours in the layer above and below. */
  up: number[];
  down: number[];
}

export function layoutGraph(asl: AslDefinition, options: LayoutOptions = {}): GraphLayout {
  const nodeWidth =
    options.nodeWidth ??
    ((name: string, type: string) =>
      Math.min(260, Math.max(110, name.length * 7 + 28 + (type === 'Choice' || type === 'Wait' ? 18 : 0))));
  const nodeHeight = options.nodeHeight ?? 30;
  const layerGap = options.layerGap ?? 34;
  const nodeGap = options.nodeGap ?? 28;
  const margin = options.margin ?? 16;
  const fanIn = options.collapseCatchFanIn ?? 3;

  const names = Object.keys(asl.States);
  const all = stateEdges(asl);
  const catchFanIn = new Map<string, number>();
  for (const e of all) if (e.kinds.includes('catch')) catchFanIn.set(e.to, (catchFanIn.get(e.to) ?? 0) + 1);
  const isCollapsed = (e: StateEdge) =>
    e.kinds.length === 1 && e.kinds[0] === 'catch' && (catchFanIn.get(e.to) ?? 0) >= fanIn;
  const collapsed = all.filter(isCollapsed);
  const kept = all.filter((e) => !isCollapsed(e) && e.from !== e.to);
  const selfLoops = all.filter((e) => !isCollapsed(e) && e.from === e.to);

  const out = new Map<string, StateEdge[]>(names.map((n) => [n, []]));
  for (const e of kept) out.get(e.from)?.push(e);

  // Depth-first from StartAt (then from any state not reached): edges into the stack go back.
  const back = new Set<StateEdge>();
  const preorder = new Map<string, number>();
  const onStack = new Set<string>();
  const visit = (start: string) => {
    const stack: { name: string; next: number }[] = [{ name: start, next: 0 }];
    preorder.set(start, preorder.size);
    onStack.add(start);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { name: string; next: number };
      const edges = out.get(top.name) ?? [];
      if (top.next >= edges.length) {
        onStack.delete(top.name);
        stack.pop();
        continue;
      }
      const edge = edges[top.next++] as StateEdge;
      if (onStack.has(edge.to)) back.add(edge);
      else if (!preorder.has(edge.to)) {
        preorder.set(edge.to, preorder.size);
        onStack.add(edge.to);
        stack.push({ name: edge.to, next: 0 });
      }
    }
  };
  if (asl.StartAt in asl.States) visit(asl.StartAt);
  const reached = new Set(preorder.keys());
  for (const name of names) if (!preorder.has(name)) visit(name);

  // Longest path over the forward edges; states StartAt does not reach go below the rest.
  const forwardIn = new Map<string, string[]>(names.map((n) => [n, []]));
  for (const e of kept) if (!back.has(e)) forwardIn.get(e.to)?.push(e.from);
  const longestPath = (group: Set<string>): Map<string, number> => {
    const memo = new Map<string, number>();
    const depth = (name: string, seen: Set<string>): number => {
      const known = memo.get(name);
      if (known !== undefined) return known;
      seen.add(name);
      let value = 0;
      for (const from of forwardIn.get(name) ?? []) {
        if (group.has(from) && !seen.has(from)) value = Math.max(value, depth(from, seen) + 1);
      }
      seen.delete(name);
      memo.set(name, value);
      return value;
    };
    for (const name of group) depth(name, new Set());
    return memo;
  };
  const layer = longestPath(reached);
  const base = Math.max(-1, ...layer.values()) + 1;
  for (const [name, value] of longestPath(new Set(names.filter((n) => !reached.has(n)))))
    layer.set(name, base + value);

  // Vertices: the states, plus a dummy per layer a long edge crosses.
  const vertices: Vertex[] = [];
  const vertexOf = new Map<string, Vertex>();
  for (const name of [...names].sort((a, b) => (preorder.get(a) ?? 0) - (preorder.get(b) ?? 0))) {
    const v: Vertex = {
      id: vertices.length,
      name,
      layer: layer.get(name) ?? 0,
      width: nodeWidth(name, asl.States[name]?.Type ?? 'Task'),
      x: 0,
      up: [],
      down: [],
    };
    vertices.push(v);
    vertexOf.set(name, v);
  }
  const chains = new Map<StateEdge, Vertex[]>();
  const link = (upper: Vertex, lower: Vertex) => {
    upper.down.push(lower.id);
    lower.up.push(upper.id);
  };
  // Loops back are routed around the right side afterwards, outside the layers' order.
  const loops = kept.filter((e) => back.has(e) || (layer.get(e.to) ?? 0) <= (layer.get(e.from) ?? 0));
  for (const e of kept) {
    if (loops.includes(e)) continue;
    const from = vertexOf.get(e.from) as Vertex;
    const to = vertexOf.get(e.to) as Vertex;
    const chain = [from];
    for (let l = from.layer + 1; l < to.layer; l++) {
      const dummy: Vertex = { id: vertices.length, layer: l, width: 0, x: 0, up: [], down: [] };
      vertices.push(dummy);
      chain.push(dummy);
    }
    chain.push(to);
    for (let i = 1; i < chain.length; i++) link(chain[i - 1] as Vertex, chain[i] as Vertex);
    chains.set(e, chain);
  }

  const layerCount = Math.max(0, ...vertices.map((v) => v.layer)) + 1;
  let layers: Vertex[][] = Array.from({ length: layerCount }, () => []);
  for (const v of vertices) layers[v.layer]?.push(v);
  const position = new Map<number, number>();
  const index = () => {
    for (const row of layers) {
      for (const [i, v] of row.entries()) position.set(v.id, i);
    }
  };
  index();

  const crossings = (): number => {
    let count = 0;
    for (const row of layers) {
      const pairs: [number, number][] = [];
      for (const v of row)
        for (const d of v.down) pairs.push([position.get(v.id) ?? 0, position.get(d) ?? 0]);
      for (let i = 0; i < pairs.length; i++)
        for (let j = i + 1; j < pairs.length; j++) {
          const [a1, b1] = pairs[i] as [number, number];
          const [a2, b2] = pairs[j] as [number, number];
          if ((a1 - a2) * (b1 - b2) < 0) count++;
        }
    }
    return count;
  };
  const barycenter = (v: Vertex, side: 'up' | 'down'): number => {
    const neighbours = v[side];
    if (neighbours.length === 0) return position.get(v.id) ?? 0;
    return neighbours.reduce((sum, n) => sum + (position.get(n) ?? 0), 0) / neighbours.length;
  };
  let best = layers.map((row) => [...row]);
  let bestCrossings = crossings();
  for (let sweep = 0; sweep < 12 && bestCrossings > 0; sweep++) {
    const down = sweep % 2 === 0;
    const order = down ? layers.keys() : [...layers.keys()].reverse();
    for (const l of order) {
      const row = layers[l] as Vertex[];
      const keys = new Map(row.map((v) => [v.id, barycenter(v, down ? 'up' : 'down')]));
      row.sort((a, b) => (keys.get(a.id) ?? 0) - (keys.get(b.id) ?? 0));
      for (const [i, v] of row.entries()) position.set(v.id, i);
    }
    const count = crossings();
    if (count < bestCrossings) {
      bestCrossings = count;
      best = layers.map((row) => [...row]);
    }
  }
  layers = best;
  index();

  // x: pack, then pull each vertex towards its neighbours' mean, keeping the order and gaps.
  const separation = (a: Vertex, b: Vertex) =>
    a.width / 2 + b.width / 2 + (a.name === undefined && b.name === undefined ? nodeGap / 3 : nodeGap);
  for (const row of layers) {
    let x = 0;
    row.forEach((v, i) => {
      if (i > 0) x += separation(row[i - 1] as Vertex, v);
      v.x = x;
    });
  }
  const place = (row: Vertex[], desired: number[]) => {
    const left = [...desired];
    for (let i = 1; i < row.length; i++)
      left[i] = Math.max(
        left[i] as number,
        (left[i - 1] as number) + separation(row[i - 1] as Vertex, row[i] as Vertex),
      );
    const right = [...desired];
    for (let i = row.length - 2; i >= 0; i--)
      right[i] = Math.min(
        right[i] as number,
        (right[i + 1] as number) - separation(row[i] as Vertex, row[i + 1] as Vertex),
      );
    row.forEach((v, i) => {
      v.x = ((left[i] as number) + (right[i] as number)) / 2;
    });
  };
  const byId = (id: number) => vertices[id] as Vertex;
  for (let sweep = 0; sweep < 8; sweep++) {
    const down = sweep % 2 === 0;
    const order = down ? [...layers.keys()] : [...layers.keys()].reverse();
    for (const l of order) {
      const row = layers[l] as Vertex[];
      const desired = row.map((v) => {
        const neighbours = down ? v.up : v.down;
        const all = neighbours.length > 0 ? neighbours : down ? v.down : v.up;
        if (all.length === 0) return v.x;
        return all.reduce((sum, n) => sum + byId(n).x, 0) / all.length;
      });
      place(row, desired);
    }
  }
  const minX = Math.min(...vertices.map((v) => v.x - v.width / 2));
  for (const v of vertices) v.x += margin - minX;
  const top = (l: number) => margin + l * (nodeHeight + layerGap);
  const middle = (v: Vertex) => top(v.layer) + nodeHeight / 2;

  // Each loop gets a lane right of everything in the layers it spans, apart from overlapping lanes.
  const lanes: { low: number; high: number; x: number }[] = [];
  const loopEdges: LaidEdge[] = [...loops]
    .sort(
      (a, b) =>
        Math.abs((layer.get(a.from) ?? 0) - (layer.get(a.to) ?? 0)) -
        Math.abs((layer.get(b.from) ?? 0) - (layer.get(b.to) ?? 0)),
    )
    .map((e) => {
      const from = vertexOf.get(e.from) as Vertex;
      const to = vertexOf.get(e.to) as Vertex;
      const low = Math.min(from.layer, to.layer);
      const high = Math.max(from.layer, to.layer);
      let x =
        Math.max(...vertices.filter((v) => v.layer >= low && v.layer <= high).map((v) => v.x + v.width / 2)) +
        18;
      for (let moved = true; moved; ) {
        moved = false;
        for (const lane of lanes) {
          if (lane.low <= high && low <= lane.high && Math.abs(lane.x - x) < 12) {
            x = lane.x + 12;
            moved = true;
          }
        }
      }
      lanes.push({ low, high, x });
      // Leave and enter from the side when nothing is right of the state; else through the gap between layers.
      const outermost = (v: Vertex) => (layers[v.layer] ?? []).every((other) => other === v || other.x < v.x);
      const start = outermost(from)
        ? [
            { x: from.x + from.width / 2, y: middle(from) },
            { x, y: middle(from) },
          ]
        : [
            { x: from.x + from.width / 4, y: top(from.layer) + nodeHeight },
            { x: from.x + from.width / 4, y: top(from.layer) + nodeHeight + layerGap / 2 },
            { x, y: top(from.layer) + nodeHeight + layerGap / 2 },
          ];
      const end = outermost(to)
        ? [
            { x, y: middle(to) },
            { x: to.x + to.width / 2, y: middle(to) },
          ]
        : [
            { x, y: top(to.layer) - layerGap / 2 },
            { x: to.x + to.width / 4, y: top(to.layer) - layerGap / 2 },
            { x: to.x + to.width / 4, y: top(to.layer) },
          ];
      return { ...e, back: true, points: [...start, ...end] };
    });
  const width = Math.max(...vertices.map((v) => v.x + v.width / 2), ...lanes.map((l) => l.x)) + margin;
  const height = top(layerCount) - layerGap + margin;

  const collapsedBy = new Map<string, string[]>();
  for (const e of collapsed) collapsedBy.set(e.from, [...(collapsedBy.get(e.from) ?? []), e.to]);
  const nodes: LaidNode[] = names.map((name) => {
    const v = vertexOf.get(name) as Vertex;
    return {
      name,
      type: asl.States[name]?.Type ?? 'Task',
      layer: v.layer,
      x: v.x - v.width / 2,
      y: top(v.layer),
      width: v.width,
      height: nodeHeight,
      collapsedCatches: collapsedBy.get(name) ?? [],
    };
  });

  const edges: LaidEdge[] = [...loopEdges];
  for (const [e, chain] of chains) {
    const from = chain[0] as Vertex;
    const to = chain[chain.length - 1] as Vertex;
    edges.push({
      ...e,
      back: false,
      points: [
        { x: from.x, y: top(from.layer) + nodeHeight },
        ...chain.slice(1, -1).map((v) => ({ x: v.x, y: middle(v) })),
        { x: to.x, y: top(to.layer) },
      ],
    });
  }
  for (const e of selfLoops) {
    const v = vertexOf.get(e.from) as Vertex;
    const right = v.x + v.width / 2;
    const y = top(v.layer);
    edges.push({
      ...e,
      back: true,
      points: [
        { x: right, y: y + nodeHeight * 0.3 },
        { x: right + 18, y: y + nodeHeight / 2 },
        { x: right, y: y + nodeHeight * 0.7 },
      ],
    });
  }
  return { nodes, edges, collapsed, width, height };
}
