import { ErrorCode } from '@tideway/common';
import { configErrorAt } from './syntax-error.js';
import type { ResolveBudget } from './limits.js';
import type { HValue } from './values.js';

/**
 * Names SeaTunnel reserves for sink placeholders (`${table_name}`, ...: TablePlaceholder in
 * SeaTunnel); a job variable may not use them, so a sink's `${table_name}` always stays for the
 * sink to fill in.
 */
export const RESERVED_PLACEHOLDERS: readonly string[] = [
  'database_name',
  'schema_name',
  'schema_full_name',
  'table_name',
  'table_full_name',
  'primary_key',
  'unique_key',
  'field_names',
];

/** Rejects `-i` variables named like a reserved sink placeholder, as SeaTunnel does. */
export function checkJobVariableNames(variables: Readonly<Record<string, string>>, file: string): void {
  for (const name of Object.keys(variables)) {
    if (RESERVED_PLACEHOLDERS.includes(name)) {
      throw configErrorAt(
        ErrorCode.CONFIG_BAD_VALUE,
        file,
        undefined,
        `the job variable '${name}' (-i ${name}=...) cannot be set: ${RESERVED_PLACEHOLDERS.map((p) => `\${${p}}`).join(', ')} are sink placeholders that the sink fills in`,
      );
    }
  }
}

/**
 * The value an unquoted `${name}` takes from `-i name=value`: a string, except that a value
 * written `[a,b]` becomes the list ["a", "b"]. SeaTunnel turns job variables into system
 * properties, and its patched properties parser splits such values on ',' without trimming.
 */
export function jobVariableValue(value: string, line: number): HValue {
  if (value.length >= 2 && value.startsWith('[') && value.endsWith(']')) {
    const inner = value.slice(1, -1);
    const parts = inner === '' ? [] : inner.split(',');
    // Java's String.split drops trailing empty strings; keep the same items.
    while (parts.length && parts[parts.length - 1] === '') parts.pop();
    return { kind: 'list', items: parts.map((p) => ({ kind: 'scalar', value: p, raw: p, line })), line };
  }
  return { kind: 'scalar', value, raw: value, line };
}

const PLACEHOLDER = /\$\{([^:{}]+)(:[^}]*)?\}/g;

/**
 * SeaTunnel's second pass over the parsed config: inside string values (quoted strings too),
 * `${name}` becomes the `-i` value of `name` when it is set and not empty; `${name:default}`
 * falls back to the trimmed default (`${name:}` to ""); otherwise the text stays as written,
 * so sink placeholders such as `${transactionId}` or `${table_name}` reach the plugin intact.
 * Environment variables are not used here (SeaTunnel reads only its system properties).
 */
export function substituteStringPlaceholders(value: HValue, variables: Readonly<Record<string, string>>, budget?: ResolveBudget): void {
  switch (value.kind) {
    case 'object':
      for (const field of value.fields.values()) {
        field.value = replaceInScalar(field.value, variables, budget);
        substituteStringPlaceholders(field.value, variables, budget);
      }
      return;
    case 'list':
      value.items.forEach((item, i) => {
        value.items[i] = replaceInScalar(item, variables, budget);
        substituteStringPlaceholders(value.items[i], variables, budget);
      });
      return;
    case 'plugins':
      for (const entry of value.entries) substituteStringPlaceholders(entry.value, variables, budget);
      return;
    default:
      return;
  }
}

function replaceInScalar(v: HValue, variables: Readonly<Record<string, string>>, budget?: ResolveBudget): HValue {
  if (v.kind !== 'scalar' || typeof v.value !== 'string' || !v.value.includes('${')) return v;
  const replaced = v.value.replace(PLACEHOLDER, (match, name: string, dflt: string | undefined) => {
    const given = variables[name];
    budget?.spend(given?.length ?? 0, v.line);
    if (given !== undefined && given !== '') return given;
    if (dflt !== undefined) return dflt.slice(1).trim();
    return match;
  });
  return replaced === v.value ? v : { ...v, value: replaced, raw: replaced };
}
