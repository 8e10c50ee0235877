export { MULTI_TABLE_OPTIONS, TABLE_PATH_KEY } from './table-options.js';
export { optionValue, optionIsSet } from './option-values.js';
export { TableEntryOptions, coerceOption } from './entry-options.js';
export { multiTableTransform, tableName, type TableStage, type TableStageBuilder } from './multi-table-transform.js';
export { requireColumn, keysWithin, deriveTable, addColumns, type AddedColumns } from './schema.js';
export { describeValue, rowValueError } from './value-error.js';
export { projectionStage } from './projection.js';
export { transformTestContext } from './test-context.js';
export { compileJavaRegex, compileJavaReplacement } from './java-regex.js';
