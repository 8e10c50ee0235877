import { formatType, type CatalogTable } from '@tideway/api';
import type { JobPlan } from './job-plan.js';
import type { PhysicalTask } from './physical-plan.js';

/** Output schemas by logical vertex id (what each source or transform produces). */
export type VertexSchemas = ReadonlyMap<number, readonly CatalogTable[]>;

export interface FormatPlanOptions {
  /** When given, each vertex shows its output tables' columns and types. */
  schemas?: VertexSchemas;
}

/** A column as the plan shows it. */
export interface PlanColumnJson {
  name: string;
  type: string;
  nullable: boolean;
}

/**
 * The plan as plain JSON data (for `tideway plan --json` and the API): the JobPlan itself, plus
 * each logical vertex's output schema when schemas are given.
 */
export interface PlanJson extends JobPlan {
  readonly schemas?: Record<string, { tableId: string; columns: PlanColumnJson[] }[]>;
}

/** The JSON form of a plan; `JSON.stringify` it as is. */
export function planToJson(plan: JobPlan, options: FormatPlanOptions = {}): PlanJson {
  if (!options.schemas) return { ...plan };
  const schemas: NonNullable<PlanJson['schemas']> = {};
  for (const [id, tables] of options.schemas) {
    schemas[String(id)] = tables.map((t) => ({
      tableId: t.tableId,
      columns: t.columns.map((c) => ({ name: c.name, type: formatType(c.type), nullable: c.nullable })),
    }));
  }
  return { ...plan, schemas };
}

/**
 * The text `tideway plan` prints: the logical DAG (each vertex with plugin, file:line,
 * parallelism, tables and, when known, output columns), then per pipeline its vertices, stages
 * of fused task groups with their task chains, shuffle edges and coordinator-side parts.
 */
export function formatPlan(plan: JobPlan, options: FormatPlanOptions = {}): string {
  const out: string[] = [];
  const { logical, pipelines, physical } = plan;
  out.push(
    `Logical DAG (${logical.vertices.length} vertices, ${logical.edges.length} edges${logical.simpleGraph ? ', simple graph' : ''})`,
  );
  for (const v of logical.vertices) {
    const tables = [
      v.inputTables.length ? `reads ${v.inputTables.map(quote).join(', ')}` : '',
      v.outputTable !== undefined ? `outputs ${quote(v.outputTable)}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    out.push(
      `  [${v.id}] ${v.plugin.type} ${v.plugin.name}  ${v.plugin.file}:${v.plugin.line}  parallelism ${v.parallelism}${tables ? `  ${tables}` : ''}`,
    );
    for (const t of options.schemas?.get(v.id) ?? []) {
      out.push(
        `        table ${t.tableId}: ${t.columns.map((c) => `${c.name} ${formatType(c.type)}${c.nullable ? '' : ' not null'}`).join(', ')}`,
      );
    }
  }
  for (const e of logical.edges) out.push(`  [${e.from}] -> [${e.to}]  ${quote(e.table)}`);

  for (const p of pipelines) {
    const phys = physical.pipelines.find((x) => x.pipelineId === p.id)!;
    const name = (id: number) => {
      const v = p.vertices.find((x) => x.id === id)!;
      return `${v.plugin.name}#${v.id}`;
    };
    out.push('', `Pipeline ${p.id} (${phys.slots} slot${phys.slots === 1 ? '' : 's'})`);
    for (const v of p.vertices) {
      const clone = v.cloned ? `  (copy of [${v.logicalId}])` : '';
      out.push(`  vertex ${v.id}: ${v.plugin.type} ${v.plugin.name}  parallelism ${v.parallelism}${clone}`);
    }
    for (const e of p.edges) out.push(`  ${name(e.from)} -> ${name(e.to)}  ${quote(e.table)}`);
    for (const s of phys.stages) {
      const groups = phys.taskGroups.filter((g) => g.stageId === s.id).map((g) => g.id);
      out.push(
        `  stage ${s.id}: ${s.parallelism} task group${s.parallelism === 1 ? '' : 's'} [${groups.join(', ')}], ${s.parallelism} slot${s.parallelism === 1 ? '' : 's'}`,
      );
      out.push(`    tasks: ${formatTasks(s.tasks, name)}`);
    }
    for (const sh of phys.shuffles) {
      out.push(
        `  shuffle ${sh.id}: ${name(sh.upstream.vertexId)} (stage ${sh.upstream.stageId}, x${sh.upstream.parallelism}) => ${name(sh.downstream.vertexId)} (stage ${sh.downstream.stageId}, x${sh.downstream.parallelism})  ${quote(sh.table)}, partitioned by ${sh.partitioning.strategy} (${sh.partitioning.withoutPrimaryKey} without a primary key)`,
      );
    }
    for (const e of phys.enumerators)
      out.push(`  coordinator: split enumerator of ${e.name}#${e.vertexId} for ${e.readers} reader${e.readers === 1 ? '' : 's'}`);
    for (const c of phys.aggregatedCommitters)
      out.push(`  coordinator: aggregated committer of ${c.name}#${c.vertexId} for ${c.writers} writer${c.writers === 1 ? '' : 's'}`);
  }
  out.push(
    '',
    `Total: ${pipelines.length} pipeline${pipelines.length === 1 ? '' : 's'}, ${physical.slots} slot${physical.slots === 1 ? '' : 's'}`,
  );
  return out.join('\n');
}

function quote(table: string): string {
  return `'${table}'`;
}

/** Tasks in flow order, e.g. `reader(FakeSource#1) -> chain(Sql#2 -> Filter#3) -> writer(Console#4)`. */
function formatTasks(tasks: readonly PhysicalTask[], name: (id: number) => string): string {
  const label = (t: PhysicalTask): string => {
    switch (t.kind) {
      case 'source-reader':
        return `reader(${name(t.vertexId)})`;
      case 'shuffle-reader':
        return `shuffle-in(${t.shuffleId})`;
      case 'transform-chain':
        return `chain(${t.vertexIds.map(name).join(' -> ')})`;
      case 'sink-writer':
        return `writer(${name(t.vertexId)})`;
      case 'shuffle-writer':
        return `shuffle-out(${t.shuffleId})`;
    }
  };
  const render = (t: PhysicalTask): string => {
    if (t.next.length === 0) return label(t);
    const next = t.next.map((i) => render(tasks[i]));
    return `${label(t)} -> ${next.length === 1 ? next[0] : `{ ${next.join(' | ')} }`}`;
  };
  return render(tasks[0]);
}
