import type { Edge, Vertex } from './api.js';

const W = 170;
const H = 54;
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
export function DagView({ vertices, edges, rows }: { vertices: Vertex[]; edges: Edge[]; rows: (v: Vertex) => string }) {
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
        return (
          <g class={`vertex ${v.type}`} data-vertex={v.vertexId} transform={`translate(${p.x},${p.y})`}>
            <rect width={W} height={H} rx="6" />
            <text x="8" y="17" class="name">
              {v.pluginName} ×{v.parallelism ?? 1}
            </text>
            <text x="8" y="32" class="tables">
              {(v.tablePaths ?? []).join(', ').slice(0, 26)}
            </text>
            <text x="8" y="47" class="rows">
              {rows(v)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
