/** A state machine definition as the graph reads it, its transitions, and the laid-out graph's shape. */

export interface AslState {
  Type?: string;
  Next?: string;
  End?: boolean;
  Default?: string;
  Choices?: { Next?: string }[];
  Catch?: { Next?: string; ErrorEquals?: string[] }[];
  Comment?: string;
}

export interface AslDefinition {
  StartAt: string;
  States: Record<string, AslState>;
}

export type EdgeKind = 'next' | 'choice' | 'default' | 'catch';

export interface StateEdge {
  from: string;
  to: string;
  kinds: EdgeKind[];
}

export interface Point {
  x: number;
  y: number;
}

export interface LaidNode {
  name: string;
  type: string;
  layer: number;
  /** Top-left corner. */
  x: number;
  y: number;
  width: number;
  height: number;
  /** Catch targets of this state whose edges are collapsed. */
  collapsedCatches: string[];
}

export interface LaidEdge extends StateEdge {
  /** From the source's border to the target's border, through the dummy points between. */
  points: Point[];
  /** Drawn against the flow (a loop back to an earlier state). */
  back: boolean;
}

export interface GraphLayout {
  nodes: LaidNode[];
  edges: LaidEdge[];
  /** Edges not drawn (collapsed catches), for drawing one that was taken. */
  collapsed: StateEdge[];
  width: number;
  height: number;
}

export interface LayoutOptions {
  nodeWidth?: (name: string, type: string) => number;
  nodeHeight?: number;
  layerGap?: number;
  nodeGap?: number;
  margin?: number;
  /** A Catch target with at least this many incoming catch edges has them collapsed. @default 3 */
  collapseCatchFanIn?: number;
}

/** The definition, if `value` looks like ASL (StartAt and States). */
export function asAsl(value: unknown): AslDefinition | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as { StartAt?: unknown; States?: unknown };
  if (typeof v.StartAt !== 'string' || typeof v.States !== 'object' || v.States === null) return undefined;
  return v as AslDefinition;
}

/** Every transition of the definition, one per (from, to) pair with all the ways it is taken. */
export function stateEdges(asl: AslDefinition): StateEdge[] {
  const edges = new Map<string, StateEdge>();
  const add = (from: string, to: string | undefined, kind: EdgeKind) => {
    if (to === undefined || !(to in asl.States)) return;
    const key = `${from}\u0000${to}`;
    const edge = edges.get(key);
    if (!edge) edges.set(key, { from, to, kinds: [kind] });
    else if (!edge.kinds.includes(kind)) edge.kinds.push(kind);
  };
  for (const [name, state] of Object.entries(asl.States)) {
    add(name, state.Next, 'next');
    for (const choice of state.Choices ?? []) add(name, choice.Next, 'choice');
    add(name, state.Default, 'default');
    for (const c of state.Catch ?? []) add(name, c.Next, 'catch');
  }
  return [...edges.values()];
}

export const edgeKey = (from: string, to: string) => `${from}\u0000${to}`;
