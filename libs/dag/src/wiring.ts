import { ConfigError, ErrorCode, type Place } from '@tideway/common';
import { DEFAULT_TABLE, type PlannedPlugin } from './planned-plugin.js';

/** One table flowing from plugin `from` to plugin `to` (indexes into the ordered plugin list). */
export interface WiredEdge {
  readonly from: number;
  readonly to: number;
  readonly table: string;
}

/**
 * SeaTunnel's "simple graph": one source, at most one transform, one sink. Only then may
 * `plugin_output` / `plugin_input` be left out (ConfigParserUtil.isSimpleGraph).
 */
export function isSimpleGraph(plugins: readonly PlannedPlugin[]): boolean {
  const count = (t: PlannedPlugin['type']) => plugins.filter((p) => p.type === t).length;
  return count('source') === 1 && count('transform') <= 1 && count('sink') === 1;
}

function wiringError(
  p: PlannedPlugin,
  message: string,
  option?: 'plugin_input' | 'plugin_output',
  details?: Record<string, unknown>,
): ConfigError {
  const line = option === 'plugin_input' ? p.inputLine : option === 'plugin_output' ? p.outputLine : undefined;
  const place: Place = { file: p.file, line: line ?? p.line, plugin: p.name, option };
  return new ConfigError(ErrorCode.CONFIG_WIRING, message, { place, details });
}

function describe(p: PlannedPlugin): string {
  return `${p.name} (${p.file}:${p.line})`;
}

/**
 * Resolves table wiring the way SeaTunnel's MultipleTableJobConfigParser does, with the
 * checks of its ConfigParserUtil.checkGraph. `plugins` must be ordered sources, transforms,
 * sinks (each in file order). Returns the edges; throws ConfigError (CONFIG_WIRING) naming
 * file:line and the table when the wiring does not connect.
 */
export function wirePlugins(plugins: readonly PlannedPlugin[]): WiredEdge[] {
  const sources = plugins.filter((p) => p.type === 'source');
  const sinks = plugins.filter((p) => p.type === 'sink');
  if (sources.length === 0 || sinks.length === 0) {
    const file = plugins[0]?.file;
    throw new ConfigError(
      ErrorCode.CONFIG_WIRING,
      `a job needs at least one source and one sink, this one has ${sources.length} source(s) and ${sinks.length} sink(s)`,
      {
        place: file !== undefined ? { file } : undefined,
      },
    );
  }
  const edges = isSimpleGraph(plugins) ? wireSimpleGraph(plugins) : wireComplexGraph(plugins);
  checkEveryOutputRead(plugins, edges);
  return edges;
}

/**
 * Simple graph: names resolve when they match a table registered so far (an omitted
 * plugin_output registers as `default`, an omitted plugin_input reads `default`; a later plugin
 * with the same name replaces the earlier, as SeaTunnel's table map does). When nothing
 * resolves, the plugin reads the most recently registered table, SeaTunnel's "previous plugin"
 * convention. One difference on purpose: when both sides name their table and the names
 * differ, SeaTunnel logs an error and runs anyway; that is almost always a typo, so it is a
 * ConfigError here.
 */
function wireSimpleGraph(plugins: readonly PlannedPlugin[]): WiredEdge[] {
  const registered = new Map<string, number>();
  const edges: WiredEdge[] = [];
  plugins.forEach((p, i) => {
    if (p.type !== 'source') {
      const wanted = p.inputs.length > 0 ? p.inputs : [DEFAULT_TABLE];
      const found = wanted.filter((t) => registered.has(t));
      if (found.length > 0) {
        for (const t of found) edges.push({ from: registered.get(t)!, to: i, table: t });
      } else {
        const [lastTable, last] = [...registered.entries()].at(-1)!;
        const previous = plugins[last];
        if (p.inputs.length > 0 && previous.output !== undefined) {
          throw wiringError(
            p,
            `plugin_input '${p.inputs[0]}' names a table that no source or transform outputs (the previous plugin ${describe(previous)} outputs '${previous.output}')`,
            'plugin_input',
            { table: p.inputs[0] },
          );
        }
        edges.push({ from: last, to: i, table: lastTable });
      }
    }
    if (p.type !== 'sink') registered.set(p.output ?? DEFAULT_TABLE, i);
  });
  return edges;
}

/**
 * Any other graph: SeaTunnel requires plugin_output on every source and transform and
 * plugin_input on every transform and sink; output names must be unique and every input must
 * name an output. Transforms may read transforms declared later; a cycle is an error.
 */
function wireComplexGraph(plugins: readonly PlannedPlugin[]): WiredEdge[] {
  const why = 'a job with more than one source, more than one sink or more than one transform must name its tables';
  for (const p of plugins) {
    if (p.type !== 'sink' && p.output === undefined) throw wiringError(p, `plugin_output is not set: ${why}`, 'plugin_output');
  }
  for (const p of plugins) {
    if (p.type !== 'source' && p.inputs.length === 0) throw wiringError(p, `plugin_input is not set: ${why}`, 'plugin_input');
  }
  const producer = new Map<string, number>();
  plugins.forEach((p, i) => {
    if (p.type === 'sink') return;
    const first = producer.get(p.output!);
    if (first !== undefined) {
      throw wiringError(
        p,
        `plugin_output '${p.output}' is also the output of ${describe(plugins[first])}; table names must be unique`,
        'plugin_output',
        { table: p.output },
      );
    }
    producer.set(p.output!, i);
  });
  const edges: WiredEdge[] = [];
  plugins.forEach((p, i) => {
    if (p.type === 'source') return;
    for (const table of p.inputs) {
      const from = producer.get(table);
      if (from === undefined) {
        const known = [...producer.keys()].map((t) => `'${t}'`).join(', ');
        throw wiringError(
          p,
          `plugin_input '${table}' names a table that no source or transform outputs (known tables: ${known})`,
          'plugin_input',
          { table },
        );
      }
      edges.push({ from, to: i, table });
    }
  });
  checkNoCycle(plugins, edges);
  return edges;
}

/** A source or transform whose table nobody reads would run for nothing: SeaTunnel refuses it. */
function checkEveryOutputRead(plugins: readonly PlannedPlugin[], edges: readonly WiredEdge[]): void {
  const read = new Set(edges.map((e) => e.from));
  plugins.forEach((p, i) => {
    if (p.type !== 'sink' && !read.has(i)) {
      const table = p.output ?? DEFAULT_TABLE;
      throw wiringError(
        p,
        `the table '${table}' that this ${p.type} outputs is read by no transform or sink`,
        p.output !== undefined ? 'plugin_output' : undefined,
        { table },
      );
    }
  });
}

/** Depth-first search over transform edges; reports the first cycle as `a -> b -> a` by table. */
function checkNoCycle(plugins: readonly PlannedPlugin[], edges: readonly WiredEdge[]): void {
  const next = new Map<number, WiredEdge[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e]);
  const state = new Map<number, 'open' | 'done'>();
  const path: number[] = [];
  const visit = (i: number): void => {
    state.set(i, 'open');
    path.push(i);
    for (const e of next.get(i) ?? []) {
      const s = state.get(e.to);
      if (s === 'open') {
        const cycle = path.slice(path.indexOf(e.to)).map((k) => plugins[k].output!);
        cycle.push(plugins[e.to].output!);
        const at = plugins[e.to];
        throw wiringError(at, `the transforms read each other in a cycle: ${cycle.join(' -> ')}`, 'plugin_input', { cycle });
      }
      if (s === undefined) visit(e.to);
    }
    path.pop();
    state.set(i, 'done');
  };
  plugins.forEach((_, i) => {
    if (!state.has(i)) visit(i);
  });
}
