import { COMMON_OPTIONS, type PluginContext, type PluginSpec, type TransformFactory } from '@tideway/api';
import { SqlTransform } from './sql-transform.js';

export { SqlTransform } from './sql-transform.js';
export { SqlError } from './sql-error.js';
export { parseSelect } from './parser.js';
export { functionNames } from './functions/index.js';

const spec: PluginSpec = {
  options: [
    ...COMMON_OPTIONS,
    {
      name: 'query',
      type: 'string',
      required: true,
      description:
        "The SELECT query; its FROM names the input (plugin_input) table. Supports expressions, WHERE, CASE, CAST and SeaTunnel's SQL function library; no joins or aggregation.",
    },
  ],
};

/** SeaTunnel's `Sql` transform: a SELECT ... FROM ... WHERE query over each row. */
export const sqlTransformFactory: TransformFactory = {
  type: 'transform',
  name: 'Sql',
  description:
    "Transforms rows with a SQL SELECT query in SeaTunnel's dialect: projections with expressions and aliases, WHERE filters, CASE, CAST and the SQL function library (string, numeric, date/time, system). The query is compiled once; errors point at their position in the query.",
  spec,
  create(ctx: PluginContext) {
    const inputs = ctx.options.get<string[] | string | undefined>('plugin_input');
    const names = inputs === undefined ? [] : Array.isArray(inputs) ? inputs : [inputs];
    return new SqlTransform(ctx.options.get<string>('query'), ctx.inputTables, names, ctx.options.place('query'));
  },
};
