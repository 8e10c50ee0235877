/**
 * Secrets never leak: option values under sensitive keys (passwords, keys, tokens, credentials)
 * are shown as `******` wherever Tideway prints a config, an error or a log line. Two layers:
 * key-based masking of structured values (redactSecrets), and text masking (redactText) that
 * replaces every secret value this process has seen (rememberSecret, called when a job config is
 * parsed or a task descriptor arrives) plus the passwords of URLs (`scheme://user:pass@host`,
 * `?password=...`). The second layer is what keeps a driver's error message that quotes a
 * password or a connection URL from leaking it.
 */

/** What a secret is shown as. */
export const MASK = '******';

/**
 * Option names whose values are secret: SeaTunnel's shaded keys (password, username is not one:
 * it is shown) plus the credential names of its connectors (S3 access_key/secret_key, Kafka
 * sasl.jaas.config, Elasticsearch api_key, ...). Matching is on the last segment of a dotted
 * name, case-insensitive.
 */
const SENSITIVE_KEY =
  /(^|[._-])(password|passwd|pwd|secret|token|credentials?|auth|api[._-]?key|access[._-]?key|secret[._-]?key|private[._-]?key|jaas\.config)$|secret/i;

/** Whether an option (dotted path or plain name) holds a secret. */
export function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEY.test(key);
}

const known = new Set<string>();
// Secrets shorter than this would mask ordinary words and numbers in every message.
const MIN_REMEMBERED = 4;
let pattern: RegExp | undefined;

/** Remembers a secret value so that redactText masks it in any text this process prints. */
export function rememberSecret(value: string): void {
  if (value.length < MIN_REMEMBERED || known.has(value)) return;
  known.add(value);
  pattern = undefined;
}

/** Remembers the values of every sensitive key in a (nested) config object. */
export function rememberSecretsOf(value: unknown, key = ''): void {
  if (Array.isArray(value)) for (const v of value) rememberSecretsOf(v, key);
  else if (typeof value === 'object' && value !== null)
    // A dotted HOCON key is nested objects: `fs.s3a.secret.key = x` is judged as `secret.key`.
    for (const [k, v] of Object.entries(value))
      rememberSecretsOf(v, key && isSensitiveKey(`${lastSegment(key)}.${k}`) ? `${lastSegment(key)}.${k}` : k);
  else if (typeof value === 'string' && isSensitiveKey(key)) rememberSecret(value);
  else if (typeof value === 'string') for (const p of urlPasswords(value)) rememberSecret(p);
}

function lastSegment(key: string): string {
  return key.slice(key.lastIndexOf('.') + 1);
}

/** A copy of a config value with every sensitive key's value replaced by MASK and URL passwords masked. */
export function redactSecrets<T>(value: T, key = ''): T {
  if (Array.isArray(value)) return value.map((v: unknown) => redactSecrets(v, key)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactSecrets(v, k)])) as T;
  }
  if (key !== '' && isSensitiveKey(key) && value !== null && value !== undefined && value !== '') return MASK as T;
  return (typeof value === 'string' ? redactText(value) : value) as T;
}

// user:password@ in a URL; password=... / "password":"..." / password: ... in text.
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/[^/\s:@'"]*:)([^@\s/'"]+)(@)/gi;
// Tideway's bearer tokens (tideway token create) are recognisable wherever they appear.
const BEARER = /\btw_[A-Za-z0-9_-]{43}\b/g;
// A key whose value is an object or a list (`"secret":{...}` in a JSON log line) is not a value:
// its members are masked by their own keys.
const KEY_VALUE = /((?:"|\b)(?:password|passwd|pwd|secret|token|secret_key|access_key|api_key)"?\s*[=:]\s*"?)(?![{[])([^"&;,\s}]+)/gi;

function urlPasswords(text: string): string[] {
  return [...text.matchAll(URL_USERINFO)].map((m) => m[2]);
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The text with every remembered secret, URL password and `password=value` masked. */
export function redactText(text: string): string {
  let out = text
    .replace(BEARER, MASK)
    .replace(URL_USERINFO, `$1${MASK}$3`)
    .replace(KEY_VALUE, (m, k: string, v: string) => (v === MASK ? m : `${k}${MASK}`));
  if (known.size) {
    // Longest first, so a secret that contains another is masked whole.
    pattern ??= new RegExp(
      [...known]
        .sort((a, b) => b.length - a.length)
        .map(escape)
        .join('|'),
      'g',
    );
    out = out.replace(pattern, MASK);
  }
  return out;
}
