import { hoconSyntaxError } from './syntax-error.js';
import { tokenize, type Token } from './tokenizer.js';
import { concatenateResolved } from './concatenation.js';
import { DEFAULT_CONFIG_LIMITS, tooDeep } from './limits.js';
import { mergeValues, newObject, type HObject, type HPiece, type HPluginBlocks, type HValue } from './values.js';

export interface HoconParseOptions {
  /** File name for messages. */
  file?: string;
  /** Strict JSON: quoted keys, ':' separators, commas, no comments or substitutions. */
  json?: boolean;
  /**
   * Top-level keys whose object value holds plugin blocks that must stay separate entries in
   * file order (SeaTunnel's patched Typesafe Config does this for source/transform/sink).
   * Ignored in JSON mode, where these sections are arrays of objects with `plugin_name`.
   */
  pluginSections?: readonly string[];
  /** Keys on the path to any value, at most (default DEFAULT_CONFIG_LIMITS.maxDepth): deeper is refused, not recursed into. */
  maxDepth?: number;
}

const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
const INCLUDE_TARGET = /^(file|url|classpath|required)\(/;

/**
 * Parses HOCON (or strict JSON) text into a value tree whose substitutions are not yet
 * resolved. The root is an object, with or without braces.
 */
export function parseHocon(text: string, options: HoconParseOptions = {}): HObject {
  const parser = new Parser(tokenize(text, options.file ?? '<config>', options.json ?? false), options);
  return parser.parseDocument();
}

class Parser {
  private pos = 0;
  private readonly file: string;
  private readonly json: boolean;
  private readonly sections: ReadonlySet<string>;
  private readonly maxDepth: number;

  constructor(
    private readonly tokens: Token[],
    options: HoconParseOptions,
  ) {
    this.file = options.file ?? '<config>';
    this.json = options.json ?? false;
    this.sections = new Set(this.json ? [] : (options.pluginSections ?? []));
    this.maxDepth = options.maxDepth ?? DEFAULT_CONFIG_LIMITS.maxDepth;
  }

  parseDocument(): HObject {
    this.skip(true);
    let root: HObject;
    if (this.peek().kind === '{') {
      this.next();
      root = this.parseObjectBody('}', []);
      this.expect('}', "'}' closing the root object");
    } else if (this.json) {
      throw this.error(this.peek(), `expected '{' starting a JSON object, found ${this.describe(this.peek())}`);
    } else {
      root = this.parseObjectBody('eof', []);
    }
    this.skip(true);
    if (this.peek().kind !== 'eof') throw this.error(this.peek(), `expected the end of the file, found ${this.describe(this.peek())}`);
    return root;
  }

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)];
  }

  private next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.pos++;
    return t;
  }

  /** Skips whitespace, and newlines too when `newlines`. */
  private skip(newlines: boolean): void {
    for (;;) {
      const k = this.peek().kind;
      if (k === 'ws' || (newlines && k === 'newline')) this.pos++;
      else return;
    }
  }

  private expect(kind: Token['kind'], what: string): Token {
    const t = this.peek();
    if (t.kind !== kind) throw this.error(t, `expected ${what}, found ${this.describe(t)}`);
    return this.next();
  }

  private error(t: Token, what: string): Error {
    return hoconSyntaxError(this.file, t.line, t.col, what);
  }

  private describe(t: Token): string {
    switch (t.kind) {
      case 'eof':
        return 'the end of the file';
      case 'newline':
        return 'the end of the line';
      case 'quoted':
        return `the string "${t.text}"`;
      case 'unquoted':
        return `'${t.text}'`;
      case 'subst':
        return `the substitution ${t.text}`;
      default:
        return `'${t.text}'`;
    }
  }

  /** Fields until `close`; separators are commas or newlines (JSON: commas only). */
  private parseObjectBody(close: '}' | 'eof', prefix: string[]): HObject {
    const obj = newObject(this.peek().line);
    this.skip(true);
    while (this.peek().kind !== close) {
      this.parseField(obj, prefix);
      this.endItem(close, 'field');
    }
    return obj;
  }

  /**
   * After a field or array item: a comma, a newline or the closing token must follow. HOCON
   * allows one trailing comma; JSON needs commas and allows no trailing one.
   */
  private endItem(close: '}' | ']' | 'eof', what: string): void {
    this.skip(false);
    const t = this.peek();
    if (t.kind === ',') {
      this.next();
      this.skip(true);
      if (this.json && this.peek().kind === close)
        throw this.error(this.peek(), `expected a ${what} after ',' (JSON allows no trailing comma)`);
      return;
    }
    if (t.kind === close) return;
    if (t.kind === 'newline' && !this.json) {
      this.skip(true);
      return;
    }
    if (t.kind === 'newline') {
      this.skip(true);
      if (this.peek().kind === close) return;
      throw this.error(this.peek(), `expected ',' between JSON ${what}s`);
    }
    const closeText = close === 'eof' ? 'the end of the file' : `'${close}'`;
    throw this.error(t, `expected ',', a new line or ${closeText} after the ${what}, found ${this.describe(t)}`);
  }

  /** A key path: unquoted text splits on '.', quoted text is one element. */
  private parseKey(): { path: string[]; first: Token } {
    const first = this.peek();
    if (this.json) {
      const t = this.expect('quoted', 'a quoted key (JSON keys are strings)');
      return { path: [t.text], first };
    }
    const keyTokens: Token[] = [];
    while (['quoted', 'unquoted', 'ws'].includes(this.peek().kind)) keyTokens.push(this.next());
    while (keyTokens.length && keyTokens[keyTokens.length - 1].kind === 'ws') keyTokens.pop();
    if (!keyTokens.length) throw this.error(first, `expected a key, found ${this.describe(first)}`);
    if (keyTokens[0].kind === 'unquoted' && keyTokens[0].text === 'include') {
      const target = keyTokens.find((t, i) => i > 0 && t.kind !== 'ws');
      if (target && (target.kind === 'quoted' || INCLUDE_TARGET.test(target.text))) {
        throw this.error(first, 'include is not supported in job configs: put the included settings in this file');
      }
    }
    const path: string[] = [''];
    let touched = false;
    for (const t of keyTokens) {
      if (t.kind === 'quoted') {
        path[path.length - 1] += t.text;
        touched = true;
      } else if (t.kind === 'ws') {
        path[path.length - 1] += t.text;
      } else {
        const parts = t.text.split('.');
        parts.forEach((p, i) => {
          if (i > 0) {
            if (!touched) throw this.error(t, `expected a key element before '.' in key '${this.keyText(keyTokens)}'`);
            path.push('');
            touched = false;
          }
          if (p !== '') touched = true;
          path[path.length - 1] += p;
        });
      }
    }
    if (!touched) throw this.error(keyTokens[keyTokens.length - 1], `expected a key element after '.' in key '${this.keyText(keyTokens)}'`);
    return { path, first };
  }

  private keyText(tokens: Token[]): string {
    return tokens.map((t) => (t.kind === 'quoted' ? `"${t.text}"` : t.text)).join('');
  }

  private parseField(obj: HObject, prefix: string[]): void {
    const { path, first } = this.parseKey();
    this.skip(false);
    const sep = this.peek();
    let append = false;
    if (sep.kind === ':' || sep.kind === '=' || sep.kind === '+=') {
      this.next();
      append = sep.kind === '+=';
      this.skip(true);
    } else if (sep.kind !== '{' || this.json) {
      const expected = this.json ? "':'" : "'=', ':' or '{'";
      throw this.error(sep, `expected ${expected} after the key '${path.join('.')}', found ${this.describe(sep)}`);
    }
    const fullPath = [...prefix, ...path];
    let value: HValue;
    if (prefix.length === 0 && path.length === 1 && this.sections.has(path[0]) && this.peek().kind === '{' && !append) {
      value = this.parsePluginBlocks(path[0]);
    } else {
      value = this.parseValue(fullPath, `the key '${path.join('.')}'`);
    }
    if (append) {
      value = {
        kind: 'concat',
        pieces: [
          { kind: 'subst', path: fullPath, optional: true, line: first.line, col: first.col },
          { kind: 'list', items: [value], line: first.line },
        ],
        line: first.line,
        col: first.col,
      };
    }
    setPath(obj, path, value, first.line);
  }

  /** `source { A {...} A {...} }`: one entry per block, in order, never merged. */
  private parsePluginBlocks(section: string): HPluginBlocks {
    const open = this.expect('{', "'{'");
    const blocks: HPluginBlocks = { kind: 'plugins', entries: [], line: open.line };
    this.skip(true);
    while (this.peek().kind !== '}') {
      const { path, first } = this.parseKey();
      this.skip(false);
      const sep = this.peek();
      if (sep.kind === ':' || sep.kind === '=') {
        this.next();
        this.skip(true);
      } else if (sep.kind !== '{') {
        throw this.error(sep, `expected '{' opening the options of plugin '${path.join('.')}' in ${section}, found ${this.describe(sep)}`);
      }
      const entryPath = [section, `#${blocks.entries.length}`];
      let value = this.parseValue([...entryPath, ...path.slice(1)], `plugin '${path[0]}'`);
      if (path.length > 1) {
        // `FakeSource.row.num = 1` inside a section: the rest of the path nests under the plugin.
        const wrapper = newObject(first.line);
        setPath(wrapper, path.slice(1), value, first.line);
        value = wrapper;
      }
      blocks.entries.push({ name: path[0], line: first.line, value });
      this.endItem('}', 'plugin block');
    }
    this.next();
    return blocks;
  }

  /** One value, possibly a concatenation of several pieces on the same line. */
  private parseValue(path: string[], after: string): HValue {
    const pieces: HPiece[] = [];
    const start = this.peek();
    // Each level below costs stack frames: refuse before recursing.
    if (path.length > this.maxDepth) throw tooDeep(this.file, start.line, this.maxDepth);
    let hasSubst = false;
    for (;;) {
      const t = this.peek();
      if (t.kind === 'ws') {
        this.next();
        if (!this.json) pieces.push({ kind: 'ws', text: t.text });
        continue;
      }
      if (t.kind === 'newline' || t.kind === ',' || t.kind === '}' || t.kind === ']' || t.kind === 'eof') break;
      if (this.json && pieces.length) throw this.error(t, `expected ',' or the end of the value, found ${this.describe(t)}`);
      if (t.kind === 'quoted') {
        this.next();
        pieces.push({ kind: 'scalar', value: t.text, raw: t.text, line: t.line });
      } else if (t.kind === 'unquoted') {
        this.next();
        pieces.push(unquotedScalar(t));
      } else if (t.kind === 'subst') {
        this.next();
        hasSubst = true;
        pieces.push({ kind: 'subst', path: t.path ?? [], optional: t.optional ?? false, line: t.line, col: t.col });
      } else if (t.kind === '{') {
        this.next();
        const obj = this.parseObjectBody('}', path);
        this.expect('}', "'}' closing the object");
        pieces.push(obj);
      } else if (t.kind === '[') {
        pieces.push(this.parseArray(path));
      } else {
        throw this.error(t, `expected a value, found ${this.describe(t)} (quote strings that contain ${t.text})`);
      }
    }
    while (pieces.length && pieces[pieces.length - 1].kind === 'ws') pieces.pop();
    while (pieces.length && pieces[0].kind === 'ws') pieces.shift();
    if (!pieces.length) throw this.error(this.peek(), `expected a value after ${after}, found ${this.describe(this.peek())}`);
    if (hasSubst) return { kind: 'concat', pieces, line: start.line, col: start.col };
    if (pieces.length === 1) return pieces[0] as HValue;
    return concatenateResolved(pieces as (HValue | { kind: 'ws'; text: string })[], this.file, start.line);
  }

  private parseArray(path: string[]): HValue {
    const open = this.expect('[', "'['");
    const items: HValue[] = [];
    this.skip(true);
    while (this.peek().kind !== ']') {
      if (this.peek().kind === 'eof') throw this.error(this.peek(), `expected ']' closing the list opened at line ${open.line}`);
      items.push(this.parseValue([...path, String(items.length)], 'the list item'));
      this.endItem(']', 'list item');
    }
    this.next();
    return { kind: 'list', items, line: open.line };
  }
}

function unquotedScalar(t: Token): HValue {
  const text = t.text;
  if (text === 'true' || text === 'false') return { kind: 'scalar', value: text === 'true', raw: text, line: t.line };
  if (text === 'null') return { kind: 'scalar', value: null, raw: text, line: t.line };
  if (NUMBER.test(text)) {
    // An integer past 2^53 would lose digits as a JS number (SeaTunnel reads it as an exact
    // Java long): keep its text, which options coerce exactly (e.g. partition bounds, bigint values).
    const n = Number(text);
    const exactText = Number.isInteger(n) && !Number.isSafeInteger(n) && /^[+-]?\d+$/.test(text);
    return { kind: 'scalar', value: exactText ? text : n, raw: text, line: t.line };
  }
  return { kind: 'scalar', value: text, raw: text, line: t.line };
}

/**
 * Sets `path` (relative to `obj`) to `value`, merging with what is there (HOCON duplicate keys).
 * One departure from HOCON, as SeaTunnel's config parser makes it: an option with a value and
 * dotted options below it (`start_mode = timestamp` and `start_mode.timestamp = 1`, as Kafka
 * configs write them) keep both; the dotted ones are kept under their dotted name, where HOCON
 * would let the later replace the earlier.
 */
export function setPath(obj: HObject, path: readonly string[], value: HValue, line: number): void {
  const head = obj.fields.get(path[0]);
  if (path.length > 1 && head?.value.kind === 'scalar') {
    setPath(obj, [path.join('.')], value, line);
    return;
  }
  if (
    path.length === 1 &&
    value.kind === 'scalar' &&
    head?.value.kind === 'object' &&
    head.value.fields.size > 0 &&
    head.value.fromDottedKeys
  ) {
    obj.fields.delete(path[0]);
    for (const [k, f] of head.value.fields) setPath(obj, [`${path[0]}.${k}`], f.value, f.line);
  }
  let target = value;
  for (let i = path.length - 1; i >= 1; i--) {
    const wrapper = newObject(line);
    wrapper.fromDottedKeys = true;
    wrapper.fields.set(path[i], { value: target, line });
    target = wrapper;
  }
  const key = path[0];
  const existing = obj.fields.get(key);
  if (!existing) {
    obj.fields.set(key, { value: target, line });
    return;
  }
  // An object merged into an object keeps the line where it was first written.
  const keepLine = existing.value.kind === 'object' && target.kind === 'object';
  obj.fields.set(key, { value: mergeValues(existing.value, target), line: keepLine ? existing.line : line });
}
