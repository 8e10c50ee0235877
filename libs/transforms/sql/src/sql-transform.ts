import type { CatalogTable, Row, Transform } from '@tideway/api';
import { ErrorCode, TidewayError, ValueConversionError, type Place } from '@tideway/common';
import { SqlValueError } from './compiled.js';
import { compileQuery, type CompiledQuery } from './compile-query.js';
import { parseSelect } from './parser.js';
import { SqlError } from './sql-error.js';

/**
 * SeaTunnel's Sql transform: the query is parsed and compiled once per input table when the
 * job is submitted (errors name the position in the query); each batch then runs the WHERE
 * closure and the projection closures per row. Several input tables each get the query
 * compiled against their own schema, and rows keep their table id.
 */
export class SqlTransform implements Transform {
  private readonly byTable = new Map<string, CompiledQuery>();
  private readonly single: CompiledQuery | undefined;
  private readonly outputs: CatalogTable[];

  constructor(sql: string, inputTables: readonly CatalogTable[], pluginInputs: readonly string[], place: Place) {
    if (inputTables.length === 0) throw new TidewayError(ErrorCode.SQL, 'the Sql transform has no input table', { place });
    let parsed;
    try {
      parsed = parseSelect(sql);
    } catch (err) {
      throw withPlace(err, sql, place);
    }
    this.outputs = inputTables.map((table) => {
      // FROM names the plugin_input dataset or the table itself (SeaTunnel accepts either)
      const names = [...pluginInputs, table.path.table, table.tableId];
      let q: CompiledQuery;
      try {
        q = compileQuery(parsed, sql, table, names);
      } catch (err) {
        throw withPlace(err, sql, place);
      }
      this.byTable.set(table.tableId, q);
      return q.output;
    });
    this.single = inputTables.length === 1 ? this.byTable.get(inputTables[0].tableId) : undefined;
  }

  outputTables(): CatalogTable[] {
    return this.outputs;
  }

  transform(rows: readonly Row[]): Row[] {
    const out: Row[] = [];
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r];
      const q = this.single ?? this.byTable.get(row.tableId);
      if (q === undefined)
        throw new TidewayError(ErrorCode.INTERNAL, `Sql transform got a row of table ${row.tableId}, which is not one of its input tables`);
      const fields = row.fields;
      let p = -1;
      try {
        if (q.where !== undefined && q.where(fields) !== true) continue;
        const projections = q.projections;
        const n = projections.length;
        const next = new Array<unknown>(n);
        for (p = 0; p < n; p++) {
          const pr = projections[p];
          const v = pr.kind === 'copy' ? fields[pr.index] : pr.ev(fields);
          next[p] = v === undefined ? null : v;
        }
        out.push({ kind: row.kind, tableId: row.tableId, fields: next });
      } catch (err) {
        throw runtimeError(err, p < 0 ? `WHERE ${q.whereText}` : q.projections[p].text, row);
      }
    }
    return out;
  }
}

function withPlace(err: unknown, sql: string, place: Place): unknown {
  return err instanceof SqlError ? err.at(sql, place) : err;
}

function runtimeError(err: unknown, expression: string, row: Row): Error {
  const message = err instanceof Error ? err.message : String(err);
  const kind = err instanceof SqlValueError ? ErrorCode.VALUE_CONVERSION : ErrorCode.TASK_FAILED;
  const text = `Sql transform failed on a row of table ${row.tableId}: ${message}, in expression '${expression}'`;
  return kind === ErrorCode.VALUE_CONVERSION
    ? new ValueConversionError(kind, text, { cause: err })
    : new TidewayError(kind, text, { cause: err });
}
