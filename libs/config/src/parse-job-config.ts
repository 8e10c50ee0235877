import { readFileSync } from 'node:fs';
import type { PluginType } from '@tideway/api';
import { ConfigError, ErrorCode, fileErrorText, rememberSecretsOf } from '@tideway/common';
import { loadHocon, toPlain, type HField, type HObject, type HValue } from './hocon/index.js';
import type { JobConfig, ParseOptions, PlainObject, PluginConfig } from './job-config.js';
import { decryptJobConfig } from './shade.js';

const SECTIONS: Record<string, PluginType | 'env'> = { env: 'env', source: 'source', transform: 'transform', sink: 'sink' };
const PLUGIN_SECTIONS = ['source', 'transform', 'sink'] as const;

/**
 * Parses a SeaTunnel job config (HOCON, or JSON when `format` is 'json' or the file ends in
 * `.json`) into a JobConfig: substitutions resolved, plugin blocks kept apart in file order,
 * lines kept for every option, shaded options decrypted (env shade.identifier, see shade.ts)
 * unless `shade` is false. Options are not validated here (see validatePluginOptions).
 */
export function parseJobConfig(text: string, opts: ParseOptions = {}): JobConfig {
  const file = opts.file ?? '<config>';
  const json = (opts.format ?? (file.toLowerCase().endsWith('.json') ? 'json' : 'hocon')) === 'json';
  const root = loadHocon(text, {
    file,
    json,
    pluginSections: PLUGIN_SECTIONS,
    variables: opts.variables,
    env: opts.env ?? process.env,
    limits: opts.limits,
  });

  for (const [key, field] of root.fields) {
    if (SECTIONS[key] === undefined) {
      throw new ConfigError(
        ErrorCode.CONFIG_SYNTAX,
        `unknown section '${key}': a job config has the sections env, source, transform and sink`,
        {
          place: { file, line: field.line },
        },
      );
    }
  }

  const envField = root.fields.get('env');
  let env: PlainObject = {};
  let envLines: Record<string, number> = {};
  if (envField) {
    if (envField.value.kind !== 'object') throw sectionError(file, envField, 'env', 'an object of settings');
    const converted = toPlain(envField.value);
    env = converted.value as PlainObject;
    envLines = converted.lines;
  }

  const sources = pluginsOf(root, 'source', file);
  const transforms = pluginsOf(root, 'transform', file);
  const sinks = pluginsOf(root, 'sink', file);
  if (!sources.length) throw missingSection(file, root, 'source');
  if (!sinks.length) throw missingSection(file, root, 'sink');
  const parsed: JobConfig = { file, env, envLines, sources, transforms, sinks };
  const config = opts.shade === false ? parsed : decryptJobConfig(parsed);
  // Every password of the job is masked in this process's errors and logs from here on.
  for (const p of [...config.sources, ...config.transforms, ...config.sinks]) rememberSecretsOf(p.options);
  rememberSecretsOf(config.env);
  return config;
}

/** Reads and parses a job config file (see parseJobConfig); the file name appears in errors. */
export function loadJobConfigFile(path: string, opts: ParseOptions = {}): JobConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(ErrorCode.CONFIG_SYNTAX, `cannot read the job config file: ${fileErrorText(e)}`, {
      place: { file: path },
      cause: e,
    });
  }
  return parseJobConfig(text, { ...opts, file: opts.file ?? path });
}

function pluginsOf(root: HObject, type: PluginType, file: string): PluginConfig[] {
  const field = root.fields.get(type);
  if (!field) return [];
  const v = field.value;
  // HOCON `source { A {...} }` gives plugin blocks; JSON (and HOCON written that way) gives a
  // list of objects that name their plugin in `plugin_name`.
  const entries: { name: string | undefined; line: number; value: HValue }[] =
    v.kind === 'plugins'
      ? v.entries.map((e) => ({ name: e.name, line: e.line, value: e.value }))
      : v.kind === 'list'
        ? v.items.map((item) => ({ name: undefined, line: item.line, value: item }))
        : [];
  if (v.kind !== 'plugins' && v.kind !== 'list') throw sectionError(file, field, type, `plugin blocks (${type} { Name { ... } })`);
  return entries.map((entry, index) => {
    if (entry.value.kind !== 'object') {
      const what = entry.name !== undefined ? `plugin '${entry.name}'` : `entry ${index + 1}`;
      throw new ConfigError(ErrorCode.CONFIG_SYNTAX, `${what} in ${type} must be an object of options`, {
        place: { file, line: entry.line },
      });
    }
    const { value, lines } = toPlain(entry.value);
    const options = value as PlainObject;
    const explicit = options.plugin_name;
    delete options.plugin_name;
    delete lines.plugin_name;
    // SeaTunnel adds plugin_name as a fallback to each block, so one written inside wins.
    const name = typeof explicit === 'string' && explicit !== '' ? explicit : entry.name;
    if (name === undefined) {
      throw new ConfigError(ErrorCode.CONFIG_MISSING_OPTION, `entry ${index + 1} in ${type} has no plugin_name`, {
        place: { file, line: entry.line },
      });
    }
    return { type, name, index, file, line: entry.line, options, optionLines: lines };
  });
}

function sectionError(file: string, field: HField, section: string, expected: string): ConfigError {
  return new ConfigError(ErrorCode.CONFIG_SYNTAX, `section '${section}' must hold ${expected}`, { place: { file, line: field.line } });
}

function missingSection(file: string, root: HObject, section: string): ConfigError {
  const line = root.fields.get(section)?.line;
  return new ConfigError(
    ErrorCode.CONFIG_MISSING_OPTION,
    `the job config needs at least one ${section} plugin (${section} { Name { ... } })`,
    {
      place: { file, line },
    },
  );
}
