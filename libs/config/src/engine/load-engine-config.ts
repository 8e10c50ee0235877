import { readFileSync } from 'node:fs';
import { LineCounter, isMap, isScalar, isSeq, parse as parseYaml, parseDocument, type Node } from 'yaml';
import { ConfigError, ErrorCode, fileErrorText } from '@tideway/common';
import { SEATUNNEL_ENGINE_SETTINGS, TIDEWAY_SETTINGS, type EngineSetting } from './engine-settings.js';
import { compileEngineConfig, type EngineConfig, type EngineConfigInput } from './engine-config.js';

export interface LoadEngineConfigOptions {
  /** A seatunnel.yaml-shaped file; without it only defaults and `sets` apply. */
  file?: string;
  /** The file's text instead of reading `file` (the name still appears in errors). */
  text?: string;
  /** `key=value` overrides of dotted keys under seatunnel.engine, e.g. `slot-service.slot-num=2`. */
  sets?: readonly string[];
}

/**
 * Reads engine settings in SeaTunnel's seatunnel.yaml shape (`seatunnel.engine.*`, plus
 * `tideway.*`), applies `--set` overrides and returns the typed, defaulted, frozen config.
 * Unknown keys and wrong types are ConfigErrors (ENGINE_CONFIG) naming file:line or the
 * `--set` text.
 */
export function loadEngineConfig(options: LoadEngineConfigOptions = {}): EngineConfig {
  const input: EngineConfigInput = {};
  if (options.file !== undefined || options.text !== undefined)
    Object.assign(input, readYaml(options.file ?? '<engine config>', options.text));
  for (const set of options.sets ?? []) applySet(input, set);
  return compileEngineConfig(input);
}

function readYaml(file: string, given?: string): EngineConfigInput {
  let text = given;
  if (text === undefined) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new ConfigError(ErrorCode.ENGINE_CONFIG, `cannot read the engine config: ${fileErrorText(e)}`, { place: { file }, cause: e });
    }
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const lineOf = (node?: Node | null) => (node?.range ? lineCounter.linePos(node.range[0]).line : undefined);
  const fail = (node: Node | null | undefined, message: string): never => {
    throw new ConfigError(ErrorCode.ENGINE_CONFIG, message, { place: { file, line: lineOf(node) } });
  };
  if (doc.errors.length) {
    const err = doc.errors[0];
    throw new ConfigError(ErrorCode.ENGINE_CONFIG, `the YAML does not parse: ${err.message.split('\n')[0]}`, {
      place: { file, line: lineCounter.linePos(err.pos[0]).line },
    });
  }
  const root = doc.contents;
  if (root === null) return {};
  if (!isMap(root)) return fail(root, 'the engine config must be a map with the keys seatunnel and tideway');
  const out: EngineConfigInput = {};
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    const value = pair.value as Node | null;
    if (key === 'seatunnel') {
      if (!isMap(value)) return fail(value ?? pair.key, "'seatunnel' must be a map holding 'engine'");
      for (const inner of value.items) {
        const innerKey = isScalar(inner.key) ? String(inner.key.value) : '';
        if (innerKey !== 'engine')
          return fail(inner.key as Node, `unknown key 'seatunnel.${innerKey}': Tideway reads only seatunnel.engine`);
        out.seatunnel = { engine: readSection(SEATUNNEL_ENGINE_SETTINGS, inner.value as Node | null, 'seatunnel.engine', fail) };
      }
    } else if (key === 'tideway') {
      out.tideway = readSection(TIDEWAY_SETTINGS, value, 'tideway', fail);
    } else {
      return fail(pair.key, `unknown top-level key '${key}': the engine config has seatunnel.engine and tideway`);
    }
  }
  return out;
}

/** Keys earlier versions accepted, and what replaced them (named in the error instead of "unknown"). */
const REPLACED_KEYS: Readonly<Record<string, string>> = {
  'tideway.state-store.redis.nodes':
    'tideway.state-store.redis.address (the Redis holding the state) and tideway.ha.lock-nodes (the Redlock nodes)',
};

type Fail = (node: Node | null | undefined, message: string) => never;

function readSection(
  fields: Readonly<Record<string, EngineSetting>>,
  node: Node | null,
  path: string,
  fail: Fail,
): Record<string, unknown> {
  if (node === null || (isScalar(node) && node.value === null)) return {};
  if (!isMap(node)) return fail(node, `'${path}' must be a map`);
  const out: Record<string, unknown> = {};
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    const setting = fields[key];
    const keyPath = `${path}.${key}`;
    if (!setting) {
      const replacement = REPLACED_KEYS[keyPath];
      return fail(
        pair.key as Node,
        replacement ? `'${keyPath}' is no longer read: use ${replacement}` : unknownKeyMessage(keyPath, Object.keys(fields)),
      );
    }
    out[key] = readSetting(setting, pair.value as Node | null, keyPath, fail);
  }
  return out;
}

function readSetting(setting: EngineSetting, node: Node | null, path: string, fail: Fail): unknown {
  if (setting.type === 'section') return readSection(setting.fields, node, path, fail);
  if (setting.type === 'map') {
    if (node === null || (isScalar(node) && node.value === null)) return {};
    if (!isMap(node)) return fail(node, `'${path}' must be a map of key: value`);
    const out: Record<string, unknown> = {};
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      const value = pair.value as Node | null;
      if (setting.each) {
        out[key] = readSetting(setting.each, value, `${path}.${key}`, fail);
        continue;
      }
      const known = setting.known?.[key];
      if (known) out[key] = readSetting(known, value, `${path}.${key}`, fail);
      else if (isScalar(value) && value.value !== null && typeof value.value !== 'object') out[key] = value.value;
      else return fail(value ?? (pair.key as Node), `'${path}.${key}' must be a single value`);
    }
    return out;
  }
  const raw = node === null ? null : isSeq(node) ? node.toJSON() : isScalar(node) ? node.value : undefined;
  const checked = checkScalar(setting, raw);
  return checked.ok ? checked.value : fail(node, `'${path}' ${checked.reason}`);
}

type Checked = { ok: true; value: unknown } | { ok: false; reason: string };

/** The value typed for a single-value setting, or why it does not fit. */
export function checkScalar(setting: EngineSetting, raw: unknown): Checked {
  const shown = JSON.stringify(raw);
  const no = (reason: string): Checked => ({ ok: false, reason: `${reason}, not ${shown}` });
  switch (setting.type) {
    case 'int':
      if (typeof raw !== 'number' || !Number.isInteger(raw)) return no('must be an integer');
      if (setting.min !== undefined && raw < setting.min) return no(`must be at least ${setting.min}`);
      if (setting.max !== undefined && raw > setting.max) return no(`must be at most ${setting.max}`);
      return { ok: true, value: raw };
    case 'boolean':
      return typeof raw === 'boolean' ? { ok: true, value: raw } : no('must be true or false');
    case 'string':
      return typeof raw === 'string' || typeof raw === 'number' ? { ok: true, value: String(raw) } : no('must be a string');
    case 'enum': {
      const match = setting.values.find((v) => typeof raw === 'string' && v.toLowerCase() === raw.toLowerCase());
      return match !== undefined ? { ok: true, value: match } : no(`must be one of ${setting.values.join(', ')}`);
    }
    case 'string-list':
      return Array.isArray(raw) && raw.every((x) => typeof x === 'string') ? { ok: true, value: raw } : no('must be a list of strings');
    default:
      return { ok: false, reason: 'is a group of settings, not a single value' };
  }
}

function unknownKeyMessage(path: string, known: readonly string[]): string {
  return `unknown key '${path}' (known here: ${known.join(', ')})`;
}

/**
 * `--set a.b=value`: the dotted key under seatunnel.engine (keys under a map such as
 * plugin-config keep their dots); the value is read as a YAML scalar or flow list.
 */
function applySet(input: EngineConfigInput, set: string): void {
  const fail = (message: string): never => {
    throw new ConfigError(ErrorCode.ENGINE_CONFIG, `--set '${set}': ${message}`);
  };
  const eq = set.indexOf('=');
  if (eq <= 0) fail('expected key=value, e.g. slot-service.slot-num=2');
  const parts = set.slice(0, eq).trim().split('.');
  let raw: unknown;
  try {
    raw = parseYaml(set.slice(eq + 1));
  } catch (e) {
    return fail(`the value does not parse as YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const engine = ((input.seatunnel ??= {}).engine ??= {});
  let target = engine;
  let fields: Readonly<Record<string, EngineSetting>> = SEATUNNEL_ENGINE_SETTINGS;
  for (let i = 0; i < parts.length; i++) {
    const setting = fields[parts[i]];
    const path = parts.slice(0, i + 1).join('.');
    if (!setting) return fail(unknownKeyMessage(`seatunnel.engine.${path}`, Object.keys(fields)));
    if (setting.type === 'section') {
      if (i === parts.length - 1) return fail(`'${path}' is a group of settings; set one of ${Object.keys(setting.fields).join(', ')}`);
      target = (target[parts[i]] ??= {}) as Record<string, unknown>;
      fields = setting.fields;
      continue;
    }
    if (setting.type === 'map') {
      const key = parts.slice(i + 1).join('.');
      if (!key) return fail(`'${path}' is a map; set one of its keys, e.g. ${path}.namespace=/tmp/cp`);
      const known = setting.known?.[key];
      const checked = known ? checkScalar(known, raw) : { ok: true as const, value: raw };
      if (!checked.ok) return fail(`'${path}.${key}' ${checked.reason}`);
      if (checked.value === null || typeof checked.value === 'object') return fail(`'${path}.${key}' must be a single value`);
      ((target[parts[i]] ??= {}) as Record<string, unknown>)[key] = checked.value;
      return;
    }
    if (i !== parts.length - 1) return fail(`'${path}' is a single value and has no key '${parts[i + 1]}'`);
    const checked = checkScalar(setting, raw);
    if (!checked.ok) return fail(`'${path}' ${checked.reason}`);
    target[parts[i]] = checked.value;
  }
}
