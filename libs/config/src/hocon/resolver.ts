import { ErrorCode } from '@tideway/common';
import { concatenateResolved } from './concatenation.js';
import { configErrorAt } from './syntax-error.js';
import { jobVariableValue } from './job-variables.js';
import { DEFAULT_CONFIG_LIMITS, ResolveBudget, tooDeep, type ConfigLimits } from './limits.js';
import { isResolved, mergeValues, type HObject, type HPiece, type HSubstitution, type HValue, type HWhitespace } from './values.js';

export interface ResolveOptions {
  file: string;
  /** `-i key=value` job variables: looked up first. */
  variables?: Readonly<Record<string, string>>;
  /** Environment variables: looked up last (default: none). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Depth (of values and of substitution chains) and size budget (default DEFAULT_CONFIG_LIMITS). */
  limits?: ConfigLimits;
  /** The budget to spend from (shared with the placeholder pass); default a new one of limits.maxBytes. */
  budget?: ResolveBudget;
}

/**
 * Resolves every `${path}` / `${?path}` in the tree, in place. A substitution is looked up in
 * this order: a job variable (`-i name=value`), a path in the config itself, an environment
 * variable. SeaTunnel documents `-i` as the way to set variables with environment variables as
 * the fallback, so an explicit `-i` wins over both. A substitution of a field's own path (also
 * the one `+=` implies) sees the value the field had before. An optional substitution that
 * finds nothing removes its field or list item; a required one is a ConfigError that says how
 * to pass the variable.
 */
export function resolveSubstitutions(root: HObject, options: ResolveOptions): HObject {
  new Resolver(root, options).resolveObject(root, []);
  return root;
}

class Resolver {
  private readonly resolving = new Set<HValue>();
  private readonly limits: ConfigLimits;
  private readonly budget: ResolveBudget;

  constructor(
    private readonly root: HObject,
    private readonly options: ResolveOptions,
  ) {
    this.limits = options.limits ?? DEFAULT_CONFIG_LIMITS;
    this.budget = options.budget ?? new ResolveBudget(options.file, this.limits.maxBytes);
  }

  resolveObject(obj: HObject, path: readonly string[]): void {
    for (const key of [...obj.fields.keys()]) this.resolveField(obj, key, [...path, key]);
  }

  /** Resolves one field in place; returns its value, or undefined when it is removed. */
  private resolveField(obj: HObject, key: string, path: readonly string[]): HValue | undefined {
    const field = obj.fields.get(key);
    if (!field) return undefined;
    const value = this.resolveValue(field.value, path, undefined);
    if (value === undefined) obj.fields.delete(key);
    else field.value = value;
    return value;
  }

  private resolveValue(v: HValue, path: readonly string[], prior: HValue | undefined): HValue | undefined {
    // A substitution may put a deep value deeper, and a shared one (`{a: ${x}, b: ${x}}`) is
    // walked once per place: both are counted before going on.
    if (path.length > this.limits.maxDepth) throw tooDeep(this.options.file, v.line, this.limits.maxDepth);
    this.budget.spend(1, v.line);
    switch (v.kind) {
      case 'scalar':
        return v;
      case 'object':
        this.resolveObject(v, path);
        return v;
      case 'list': {
        const items: HValue[] = [];
        v.items.forEach((item, i) => {
          const r = this.resolveValue(item, [...path, String(i)], undefined);
          if (r !== undefined) items.push(r);
        });
        // Not splice(0, n, ...items): spreading a long list overflows the stack.
        v.items.length = 0;
        for (const item of items) v.items.push(item);
        return v;
      }
      case 'plugins':
        v.entries.forEach((entry, i) => {
          const r = this.resolveValue(entry.value, [...path, `#${i}`], undefined);
          entry.value = r ?? { kind: 'object', fields: new Map(), line: entry.line };
        });
        return v;
      case 'merge':
        return this.guarded(v, () => {
          let acc: HValue | undefined;
          for (const layer of v.layers) {
            const r = this.resolveValue(layer, path, acc);
            if (r === undefined) continue; // `a = ${?unset}` leaves the earlier value alone
            acc = acc !== undefined && acc.kind === 'object' && r.kind === 'object' ? mergeValues(acc, r) : r;
            if (!isResolved(acc)) acc = this.resolveValue(acc, path, undefined);
          }
          return acc;
        });
      case 'concat':
        return this.guarded(v, () => {
          const pieces: (HValue | HWhitespace)[] = [];
          let found = 0;
          for (const piece of v.pieces) {
            const r = this.resolvePiece(piece, path, prior);
            if (r === undefined) continue;
            if (r.kind !== 'ws') found++;
            pieces.push(r);
          }
          if (found === 0 && v.pieces.every((p) => p.kind === 'subst' || p.kind === 'ws')) return undefined;
          const joined = concatenateResolved(trimWhitespace(pieces), this.options.file, v.line);
          if (joined.kind === 'list') this.budget.spend(joined.items.length, v.line);
          else if (joined.kind === 'scalar' && typeof joined.value === 'string') this.budget.spend(joined.value.length, v.line);
          return isResolved(joined) ? this.resolveValue(joined, path, undefined) : joined;
        });
    }
  }

  private guarded(v: HValue, body: () => HValue | undefined): HValue | undefined {
    if (this.resolving.has(v)) {
      throw configErrorAt(
        ErrorCode.CONFIG_UNRESOLVED_VARIABLE,
        this.options.file,
        v.line,
        'this substitution refers back to itself (a cycle of ${...} references)',
      );
    }
    if (this.resolving.size >= this.limits.maxDepth)
      throw tooDeep(this.options.file, v.line, this.limits.maxDepth, 'chains ${...} substitutions');
    this.resolving.add(v);
    try {
      return body();
    } finally {
      this.resolving.delete(v);
    }
  }

  private resolvePiece(piece: HPiece, path: readonly string[], prior: HValue | undefined): HValue | HWhitespace | undefined {
    if (piece.kind === 'ws') return piece;
    if (piece.kind !== 'subst') return this.resolveValue(piece, path, undefined);
    const found = this.lookup(piece, path, prior);
    if (found !== undefined || piece.optional) return found;
    const name = piece.path.join('.');
    throw configErrorAt(
      ErrorCode.CONFIG_UNRESOLVED_VARIABLE,
      this.options.file,
      piece.line,
      `column ${piece.col}: the variable '${name}' in \${${name}} is not set: pass it with -i ${name}=value (or set the environment variable ${name}), or write \${?${name}} to make it optional`,
    );
  }

  private lookup(s: HSubstitution, path: readonly string[], prior: HValue | undefined): HValue | undefined {
    const name = s.path.join('.');
    const selfReference = s.path.length >= path.length && path.every((p, i) => s.path[i] === p);
    if (selfReference) {
      const before = prior !== undefined ? descend(prior, s.path.slice(path.length)) : undefined;
      if (before !== undefined) return before;
    } else {
      const variable = this.options.variables?.[name];
      if (variable !== undefined) return jobVariableValue(variable, s.line);
      const inConfig = this.lookupPath(s.path);
      if (inConfig !== undefined) return inConfig;
    }
    if (selfReference) {
      const variable = this.options.variables?.[name];
      if (variable !== undefined) return jobVariableValue(variable, s.line);
    }
    const env = this.options.env?.[name];
    if (env !== undefined) return { kind: 'scalar', value: env, raw: env, line: s.line };
    return undefined;
  }

  /** A path in the config, resolving what it passes through. Plugin sections are not addressable. */
  private lookupPath(target: readonly string[]): HValue | undefined {
    let node: HValue = this.root;
    for (let i = 0; i < target.length; i++) {
      if (node.kind !== 'object') return undefined;
      const field = node.fields.get(target[i]);
      if (!field) return undefined;
      // Walk through plain objects without resolving all of them: a sibling may be the very
      // substitution being resolved (`a { b = ${a.c}, c = 1 }`).
      if (field.value.kind === 'object' && i < target.length - 1) {
        node = field.value;
        continue;
      }
      const r = this.resolveField(node, target[i], target.slice(0, i + 1));
      if (r === undefined) return undefined;
      node = r;
    }
    return node;
  }
}

function descend(v: HValue, rest: readonly string[]): HValue | undefined {
  let node: HValue | undefined = v;
  for (const key of rest) {
    if (node === undefined || node.kind !== 'object') return undefined;
    node = node.fields.get(key)?.value;
  }
  return node;
}

function trimWhitespace(pieces: (HValue | HWhitespace)[]): (HValue | HWhitespace)[] {
  let start = 0;
  let end = pieces.length;
  while (start < end && pieces[start].kind === 'ws') start++;
  while (end > start && pieces[end - 1].kind === 'ws') end--;
  return pieces.slice(start, end);
}
