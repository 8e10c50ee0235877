import { DEFAULT_TABLE, type PlannedPlugin } from './planned-plugin.js';
import { isSimpleGraph, wirePlugins } from './wiring.js';

/** One plugin of the job. Ids are 1-based in SeaTunnel's order: sources, transforms, sinks. */
export interface LogicalVertex {
  readonly id: number;
  readonly plugin: PlannedPlugin;
  /**
   * Sources: their own `parallelism`, else env.parallelism. Transforms and sinks: their own,
   * else that of the plugin behind their first input (SeaTunnel's rule for transforms; SeaTunnel
   * ignores a sink's own value, Tideway honours it and shuffles when it differs).
   */
  readonly parallelism: number;
  /** Tables read, in plugin_input order (empty for sources). */
  readonly inputTables: readonly string[];
  /** The table this source or transform outputs (`default` when plugin_output is not set). */
  readonly outputTable?: string;
}

/** A table flowing from vertex `from` to vertex `to`. */
export interface LogicalEdge {
  readonly from: number;
  readonly to: number;
  readonly table: string;
}

/** The job as SeaTunnel's LogicalDag: a vertex per plugin, an edge per table read. */
export interface LogicalDag {
  readonly vertices: readonly LogicalVertex[];
  readonly edges: readonly LogicalEdge[];
  /** Whether SeaTunnel's simple-graph rules (names optional) applied. */
  readonly simpleGraph: boolean;
}

const TYPE_ORDER = { source: 0, transform: 1, sink: 2 } as const;

/**
 * Builds the LogicalDag from the planned plugins (any order; they are sorted into sources,
 * transforms, sinks by their index). Throws ConfigError (CONFIG_WIRING) with file:line and the
 * table when the wiring does not connect; see {@link wirePlugins} for the rules.
 */
export function buildLogicalDag(plugins: readonly PlannedPlugin[], envParallelism = 1): LogicalDag {
  const ordered = [...plugins].sort((a, b) => TYPE_ORDER[a.type] - TYPE_ORDER[b.type] || a.index - b.index);
  const wired = wirePlugins(ordered);
  const edges: LogicalEdge[] = wired.map((e) => ({ from: e.from + 1, to: e.to + 1, table: e.table }));
  const inputsOf = new Map<number, LogicalEdge[]>();
  for (const e of edges) inputsOf.set(e.to, [...(inputsOf.get(e.to) ?? []), e]);

  // Parallelism flows downstream, so settle it in topological order (transforms may read
  // transforms declared after them). The wiring has no cycle by now.
  const parallelism = new Map<number, number>();
  const settle = (id: number): number => {
    const known = parallelism.get(id);
    if (known !== undefined) return known;
    const p = ordered[id - 1];
    const first = inputsOf.get(id)?.[0];
    const value = p.parallelism ?? (first === undefined ? envParallelism : settle(first.from));
    parallelism.set(id, value);
    return value;
  };
  const vertices = ordered.map((plugin, i): LogicalVertex => {
    const id = i + 1;
    return {
      id,
      plugin,
      parallelism: settle(id),
      inputTables: (inputsOf.get(id) ?? []).map((e) => e.table),
      outputTable: plugin.type === 'sink' ? undefined : (plugin.output ?? DEFAULT_TABLE),
    };
  });
  return { vertices, edges, simpleGraph: isSimpleGraph(ordered) };
}
