import type { PluginSpec } from '@tideway/api';
import { COMMON_OPTIONS } from '@tideway/api';

/** Assert's options (docs/en/connector-v2/sink/Assert.md, AssertSinkFactory). */
export const ASSERT_SINK_SPEC: PluginSpec = {
  options: [
    ...COMMON_OPTIONS,
    {
      name: 'rules',
      type: 'object',
      required: true,
      description:
        "Rule definition of user's available data: row_rules (MIN_ROW/MAX_ROW), field_rules (field_name, field_type, field_value with rule_type NULL/NOT_NULL/MIN/MAX/MIN_LENGTH/MAX_LENGTH, rule_value, equals_to), catalog_table_rule (primary_key_rule, constraint_key_rule, column_rule, table_identifier_rule), table-names, and tables_configs (the same rules per table_path).",
    },
  ],
};
