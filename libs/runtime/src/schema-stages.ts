import {
  describeSchemaChange,
  diffTables,
  type CatalogTable,
  type PluginContext,
  type SchemaChangeEvent,
  type SinkWriter,
  type Transform,
} from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';

const describeError = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Passes a schema change on down a fused chain (or into a shuffle). */
export type PushSchema = (event: SchemaChangeEvent) => Promise<void>;

/** Replaces the table `event` changes in a list of tables (undefined when it is not there), or adds the table it creates. */
export function withChangedTable(tables: readonly CatalogTable[], event: SchemaChangeEvent): CatalogTable[] | undefined {
  const i = tables.findIndex((t) => t.tableId === event.tableId);
  if (i < 0) return event.created ? [...tables, event.table] : undefined;
  const out = [...tables];
  out[i] = event.table;
  return out;
}

/**
 * A transform inside a chain, re-derived when an input table changes: the engine creates the
 * transform again with the changed input (its options are the same) and passes on, for every
 * output table that came out different, the changes between the old and new output. A
 * transform that cannot be created for the new input (a query naming a dropped column, a
 * mapping of a renamed one) fails the job with one sentence naming the table and the change.
 */
export class EvolvingTransform<C extends Pick<PluginContext, 'inputTables'>> {
  private inputs: CatalogTable[];
  private outputs: CatalogTable[];

  constructor(
    private current: Transform,
    private readonly ctx: C,
    private readonly create: (ctx: C) => Transform,
    private readonly pluginName: string,
  ) {
    this.inputs = [...ctx.inputTables];
    this.outputs = current.outputTables();
  }

  get transform(): Transform {
    return this.current;
  }

  /** Re-derives the transform for `event`; returns the events its output tables pass on. */
  evolve(event: SchemaChangeEvent): SchemaChangeEvent[] {
    const inputs = withChangedTable(this.inputs, event);
    if (!inputs) return [];
    let next: Transform;
    let outputs: CatalogTable[];
    try {
      next = this.create({ ...this.ctx, inputTables: inputs });
      outputs = next.outputTables();
    } catch (err) {
      throw new TidewayError(
        ErrorCode.CONFIG_BAD_VALUE,
        `table ${event.tableId}: the ${this.pluginName} transform cannot follow ${describeSchemaChange(event)}: ${describeError(err)}`,
      );
    }
    this.current.close?.();
    this.current = next;
    const renames = new Map(event.changes.flatMap((c) => (c.kind === 'rename' ? [[c.from, c.to] as const] : [])));
    const out: SchemaChangeEvent[] = [];
    const flags = { ...(event.restored ? { restored: true } : {}) };
    for (const table of outputs) {
      const before = this.outputs.find((t) => t.tableId === table.tableId);
      if (!before || (event.created && table.tableId === event.tableId)) {
        // A table new to the job (or replayed as new): its output tables are new downstream too.
        if (event.created) out.push({ type: 'schema-change', tableId: table.tableId, changes: [], table, created: true, ...flags });
        continue;
      }
      const changes = diffTables(before, table, renames);
      if (changes.length === 0 && (!event.restored || JSON.stringify(before.columns) === JSON.stringify(table.columns))) continue;
      out.push({
        type: 'schema-change',
        tableId: table.tableId,
        changes: event.restored ? [] : changes,
        table,
        ...flags,
      });
    }
    this.inputs = inputs;
    this.outputs = outputs;
    return out;
  }
}

/** Hands a schema change to a sink writer of one of the changed tables, or fails the job in one sentence. */
export async function applyToSink(
  writer: SinkWriter,
  inputTables: readonly CatalogTable[],
  pluginName: string,
  event: SchemaChangeEvent,
): Promise<void> {
  if (!event.created && !inputTables.some((t) => t.tableId === event.tableId)) return;
  if (!writer.applySchemaChange) {
    throw new TidewayError(
      ErrorCode.CONFIG_BAD_VALUE,
      `table ${event.tableId}: the ${pluginName} sink cannot apply schema changes (${describeSchemaChange(event)})`,
    );
  }
  await writer.applySchemaChange(event);
}
