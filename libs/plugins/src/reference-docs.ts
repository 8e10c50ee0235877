import type { OptionDef, PluginFactory } from '@tideway/api';
import { COMMON_OPTIONS } from '@tideway/api';

function defaultText(o: OptionDef): string {
  if (o.required) return 'required';
  if (o.default === undefined) return '-';
  const v = typeof o.default === 'bigint' ? `${o.default}` : JSON.stringify(o.default);
  return `\`${v}\``;
}

function typeText(o: OptionDef): string {
  if (o.type === 'enum' && o.values) return `enum (${o.values.join(', ')})`;
  if (o.type === 'list' && o.elementType) return `list of ${o.elementType}`;
  return o.type;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A sentence and a table under it, or nothing when there are no rows. */
function noteTable(intro: string, header: readonly string[], rows: readonly string[][]): string[] {
  if (rows.length === 0) return [];
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [intro, '', line(header), `|${header.map(() => '---').join('|')}|`, ...rows.map(line), ''];
}

/** The reference page of one plugin, generated from its spec (docs/connectors/<file>.md). */
export function pluginReference(f: PluginFactory): string {
  const rows = f.spec.options.map(
    (o) =>
      `| \`${o.name}\` | ${typeText(o)} | ${defaultText(o)} | ${cell(o.description)}${o.fallbackNames?.length ? ` (also: ${o.fallbackNames.join(', ')})` : ''} |`,
  );
  const common = COMMON_OPTIONS.map((o) => `\`${o.name}\``).join(', ');
  const lists = f.spec.options.filter((o) => o.type === 'object-list').map((o) => `\`${o.name}\``);
  const inItems = lists.length > 0 ? ` (also in an item of ${lists.join(' or ')})` : '';
  const retiredRows = noteTable(
    `Options SeaTunnel removed or renamed: accepted with a warning${inItems}, their value has no effect.`,
    ['option', 'use instead', 'history'],
    (f.spec.retiredOptions ?? []).map((r) => [`\`${r.name}\``, cell(r.replacement), `SeaTunnel ${cell(r.history)}`]),
  );
  const ignoredRows = noteTable(
    `Other plugins' options SeaTunnel lets this block carry unread: accepted with a warning${inItems}, their value has no effect.`,
    ['option', 'why it does nothing here'],
    (f.spec.ignoredOptions ?? []).map((r) => [`\`${r.name}\``, cell(r.reason)]),
  );
  return [
    `# ${f.name} (${f.type})`,
    '',
    '<!-- Generated from the plugin spec by `pnpm gen:docs`; do not edit by hand. -->',
    '',
    f.description,
    '',
    '| option | type | default | description |',
    '|---|---|---|---|',
    ...rows,
    '',
    ...retiredRows,
    ...ignoredRows,
    `Every plugin also takes ${common}.`,
    '',
  ].join('\n');
}

/** The file name of a plugin's page, e.g. `source-fakesource.md`. */
export function referenceFileName(f: PluginFactory): string {
  return `${f.type}-${f.name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.md`;
}

/** The index page listing every plugin. */
export function referenceIndex(plugins: readonly PluginFactory[]): string {
  return [
    '# Connectors and transforms',
    '',
    '<!-- Generated from the plugin specs by `pnpm gen:docs`; do not edit by hand. -->',
    '',
    '| plugin | kind | |',
    '|---|---|---|',
    ...plugins.map((f) => `| [${f.name}](${referenceFileName(f)}) | ${f.type} | ${cell(f.description.split('. ')[0])} |`),
    '',
  ].join('\n');
}
