import type { Edge, Metrics, Vertex } from './api.js';

const W = 170;
const H = 68;

/** A vertex's shares of time (0 to 1): the busiest of the task groups that run it. */
export interface VertexBusyness {
  busy: number;
  idle: number;
  backPressured: number;
  outPoolUsage: number;
  inPoolUsage: number;
}

/** Busyness of a vertex from the running task groups' reports, undefined when none reports it. */
export function vertexBusyness(v: Vertex, m: Metrics | undefined): VertexBusyness | undefined {
  const mine = (m?.tasks ?? []).filter((t) => (t.pipelineId ?? 0) === (v.pipelineId ?? 0) && (t.vertexIds ?? []).includes(v.vertexId ?? 0));
  if (mine.length === 0) return undefined;
  const max = (f: (t: (typeof mine)[number]) => number | undefined) => Math.max(...mine.map((t) => f(t) ?? 0));
  return {
    busy: max((t) => t.busyMsPerSecond) / 1000,
    idle: max((t) => t.idleMsPerSecond) / 1000,
    backPressured: max((t) => t.backPressuredMsPerSecond) / 1000,
    outPoolUsage: max((t) => t.outPoolUsage),
    inPoolUsage: max((t) => t.inPoolUsage),
  };
}

/**
 * The colour of a vertex, as Flink's UI paints its job graph: from blue (idle) to red (busy) by
 * the busy share, and dark grey when back pressure is most of its time.
 */
export function busynessColour(b: VertexBusyness): string {
  if (b.backPressured > 0.5 && b.backPressured >= b.busy) return 'hsl(0, 0%, 30%)';
  const busy = Math.min(1, Math.max(0, b.busy));
  return `hsl(${Math.round(210 - 210 * busy)}, 70%, ${Math.round(88 - 28 * busy)}%)`;
}
const GAP_X = 60;
const GAP_Y = 18;

/** Each vertex's column: the longest path to it from a vertex with no input. */
function depths(vertices: Vertex[], edges: Edge[]): Map<number, number> {
  const depth = new Map<number, number>(vertices.map((v) => [v.vertexId ?? 0, 0]));
  for (let round = 0; round < vertices.length; round++) {
    let moved = false;
    for (const e of edges) {
      const d = (depth.get(e.inputVertexId ?? 0) ?? 0) + 1;
      if (d > (depth.get(e.targetVertexId ?? 0) ?? 0)) {
        depth.set(e.targetVertexId ?? 0, d);
        moved = true;
      }
    }
    if (!moved) break;
  }
  return depth;
}

/** One pipeline's vertices and edges as an SVG drawing, left to right; `rows` labels each vertex. */
export function DagView({
  vertices,
  edges,
  rows,
  busyness,
}: {
  vertices: Vertex[];
  edges: Edge[];
  rows: (v: Vertex) => string;
  busyness?: (v: Vertex) => VertexBusyness | undefined;
}) {
  const depth = depths(vertices, edges);
  const columns = new Map<number, Vertex[]>();
  for (const v of vertices) {
    const d = depth.get(v.vertexId ?? 0) ?? 0;
    columns.set(d, [...(columns.get(d) ?? []), v]);
  }
  const at = new Map<number, { x: number; y: number }>();
  for (const [d, list] of columns) list.forEach((v, i) => at.set(v.vertexId ?? 0, { x: d * (W + GAP_X) + 4, y: i * (H + GAP_Y) + 4 }));
  const width = Math.max(...[...columns.keys()].map((d) => (d + 1) * (W + GAP_X)), W) + 8;
  const height = Math.max(...[...columns.values()].map((l) => l.length * (H + GAP_Y)), H) + 8;
  return (
    <svg class="dag" width={width} height={height} viewBox={`0 0 ${width} ${height}`}>
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto">
          <path d="M0,0 L10,5 L0,10 z" fill="#667" />
        </marker>
      </defs>
      {edges.map((e) => {
        const a = at.get(e.inputVertexId ?? 0);
        const b = at.get(e.targetVertexId ?? 0);
        if (!a || !b) return null;
        return <line x1={a.x + W} y1={a.y + H / 2} x2={b.x} y2={b.y + H / 2} stroke="#667" stroke-width="1.5" marker-end="url(#arrow)" />;
      })}
      {vertices.map((v) => {
        const p = at.get(v.vertexId ?? 0)!;
        const b = busyness?.(v);
        const pct = (x: number) => Math.round(x * 100);
        const dark = b !== undefined && busynessColour(b).includes(' 30%)');
        return (
          <g
            class={`vertex ${v.type}${dark ? ' back-pressured' : ''}`}
            data-vertex={v.vertexId}
            data-busy={b ? pct(b.busy) : undefined}
            data-back-pressured={b ? pct(b.backPressured) : undefined}
            data-in-pool={b ? pct(b.inPoolUsage) : undefined}
            transform={`translate(${p.x},${p.y})`}
          >
            <rect width={W} height={H} rx="6" style={b ? { fill: busynessColour(b) } : undefined} />
            {b && (
              <title>
                busy {pct(b.busy)}% · idle {pct(b.idle)}% · back-pressured {pct(b.backPressured)}% · input {pct(b.inPoolUsage)}% full ·
                output {pct(b.outPoolUsage)}% full
              </title>
            )}
            <text x="8" y="17" class="name">
              {v.pluginName} ×{v.parallelism ?? 1}
            </text>
            <text x="8" y="32" class="tables">
              {(v.tablePaths ?? []).join(', ').slice(0, 26)}
            </text>
            <text x="8" y="47" class="rows">
              {rows(v)}
            </text>
            {b && (
              <text x="8" y="62" class="busyness">
                busy {pct(b.busy)}% · bp {pct(b.backPressured)}% · out {pct(b.outPoolUsage)}%
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}
