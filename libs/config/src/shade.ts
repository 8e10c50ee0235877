import { createCipheriv, createDecipheriv } from 'node:crypto';
import { ConfigError, ErrorCode, textOf } from '@tideway/common';
import type { JobConfig, PlainObject, PlainValue, PluginConfig } from './job-config.js';

/**
 * SeaTunnel's config shades (`env.shade.identifier`): sensitive option values of source and sink
 * blocks written encrypted, decoded when the config is parsed. The formats are SeaTunnel's, so a
 * config encrypted by `seatunnel.sh --encrypt` runs here and the other way round:
 * - `base64`: the UTF-8 bytes in standard base64;
 * - `aes256`: AES-256-CBC with PKCS#7 padding under SeaTunnel's built-in key and IV, then
 *   base64. The key is public (it ships in SeaTunnel's jar): aes256 hides a password from a
 *   casual reader of the file, it does not protect it from anyone who has the file.
 * - `default`: values as written.
 */
export interface ConfigShade {
  encrypt(plain: string): string;
  decrypt(encrypted: string): string;
}

// SeaTunnel's AES256ConfigShade key and IV (ASCII): needed byte for byte to read its configs.
const AES_KEY = Buffer.from('uBdUx26vPkDKb997d5NkjFoNcKWLwang', 'ascii');
const AES_IV = Buffer.from('c798GqWXPK2QUlMc', 'ascii');
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function strictBase64(text: string): Buffer {
  if (text.length % 4 !== 0 || !BASE64.test(text)) throw new Error('it is not base64 text');
  return Buffer.from(text, 'base64');
}

const SHADES: Record<string, ConfigShade> = {
  default: { encrypt: (s) => s, decrypt: (s) => s },
  base64: {
    encrypt: (s) => Buffer.from(s, 'utf8').toString('base64'),
    decrypt: (s) => strictBase64(s).toString('utf8'),
  },
  aes256: {
    encrypt: (s) => {
      const c = createCipheriv('aes-256-cbc', AES_KEY, AES_IV);
      return Buffer.concat([c.update(s, 'utf8'), c.final()]).toString('base64');
    },
    decrypt: (s) => {
      const bytes = strictBase64(s);
      const d = createDecipheriv('aes-256-cbc', AES_KEY, AES_IV);
      try {
        return Buffer.concat([d.update(bytes), d.final()]).toString('utf8');
      } catch {
        throw new Error('it is not a value encrypted by aes256 (tideway encrypt)');
      }
    },
  },
};

/** The shade identifiers Tideway knows. */
export const SHADE_IDENTIFIERS = Object.keys(SHADES);

/** SeaTunnel's default sensitive keywords: the option names a shade encrypts (exact match, at any depth). */
export const SHADED_OPTIONS: readonly string[] = ['password', 'username', 'auth', 'token', 'access_key', 'secret_key'];

/** The shade named by an identifier; `where` names the place in the refusal of an unknown one. */
export function configShade(identifier: string, where: string): ConfigShade {
  const shade = SHADES[identifier];
  if (!shade)
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${where}shade.identifier '${identifier}' is not supported: Tideway knows ${SHADE_IDENTIFIERS.join(', ')}`,
    );
  return shade;
}

/**
 * Applies `fn` to every string value under a shaded option name in a nested config value, in
 * place order; `fn` gets the dotted path for messages. Returns a copy.
 */
export function mapShadedOptions(value: PlainObject, fn: (v: string, path: string) => string, prefix = ''): PlainObject {
  const walk = (v: PlainValue, key: string, path: string): PlainValue => {
    if (Array.isArray(v)) return v.map((item, i) => walk(item, key, `${path}[${i}]`));
    if (typeof v === 'object' && v !== null) return mapShadedOptions(v, fn, path);
    return typeof v === 'string' && SHADED_OPTIONS.includes(key) ? fn(v, path) : v;
  };
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k, prefix ? `${prefix}.${k}` : k)]));
}

/** The identifier of a config's env block, `default` when it names none. */
export function shadeIdentifierOf(env: PlainObject): string {
  const shade = env.shade;
  const nested = typeof shade === 'object' && shade !== null && !Array.isArray(shade) ? shade.identifier : undefined;
  const v = env['shade.identifier'] ?? nested;
  return v === undefined || v === null ? 'default' : textOf(v);
}

/**
 * Decodes the shaded options of a parsed config's source and sink blocks (SeaTunnel leaves
 * transforms as written). A value that does not decode is an error naming its file:line.
 */
export function decryptJobConfig(config: JobConfig): JobConfig {
  const identifier = shadeIdentifierOf(config.env);
  if (identifier === 'default') return config;
  const line = config.envLines['shade.identifier'];
  const shade = configShade(identifier, `${config.file}${line !== undefined ? `:${line}` : ''}: env `);
  const decrypt = (p: PluginConfig): PluginConfig => ({
    ...p,
    options: mapShadedOptions(p.options, (v, path) => {
      try {
        return shade.decrypt(v);
      } catch (e) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `cannot be decrypted with shade.identifier ${identifier}: ${(e as Error).message}`,
          {
            place: { file: p.file, line: p.optionLines[path] ?? p.line, plugin: p.name, option: path },
          },
        );
      }
    }),
  });
  return { ...config, sources: config.sources.map(decrypt), sinks: config.sinks.map(decrypt) };
}

/**
 * The config as a JSON object (SeaTunnel's JSON shape: plugin blocks as lists with plugin_name)
 * with the shaded options of its sources and sinks encrypted or decrypted by its env's shade:
 * what `tideway encrypt` / `decrypt` print and the REST API's /encrypt-config answers.
 */
export function shadeJobConfigJson(config: JobConfig, mode: 'encrypt' | 'decrypt'): PlainObject {
  const identifier = shadeIdentifierOf(config.env);
  if (identifier === 'default') {
    throw new ConfigError(
      ErrorCode.CONFIG_MISSING_OPTION,
      `env shade.identifier is missing: set it to ${SHADE_IDENTIFIERS.filter((s) => s !== 'default').join(' or ')} to ${mode} the config`,
      {
        place: { file: config.file },
      },
    );
  }
  const shade = configShade(identifier, `${config.file}: env `);
  const block = (p: PluginConfig, shaded: boolean): PlainObject => {
    const options = shaded
      ? mapShadedOptions(p.options, (v, path) => {
          try {
            return shade[mode](v);
          } catch (e) {
            throw new ConfigError(
              ErrorCode.CONFIG_BAD_VALUE,
              `cannot be ${mode}ed with shade.identifier ${identifier}: ${(e as Error).message}`,
              {
                place: { file: p.file, line: p.optionLines[path] ?? p.line, plugin: p.name, option: path },
              },
            );
          }
        })
      : p.options;
    return { plugin_name: p.name, ...options };
  };
  return {
    env: config.env,
    source: config.sources.map((p) => block(p, true)),
    ...(config.transforms.length ? { transform: config.transforms.map((p) => block(p, false)) } : {}),
    sink: config.sinks.map((p) => block(p, true)),
  };
}
