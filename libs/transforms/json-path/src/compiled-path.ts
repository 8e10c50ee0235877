import { JSONPath } from 'jsonpath-plus';

/** A JSONPath that found nothing where it names exactly one place. */
export class PathNotFoundError extends Error {
  override readonly name = 'PathNotFoundError';
}

/** Reads a JSONPath from a document. */
export type CompiledPath = (doc: unknown) => unknown;

const SLICE = /^-?\d*:-?\d*(:-?\d*)?$/;

/**
 * Whether a path names at most one place (Jayway's "definite" path): no wildcard, deep scan,
 * filter, union or slice. A definite path gives its value (or fails when absent); any other
 * gives the list of what it found.
 */
function isDefinite(segments: readonly string[]): boolean {
  return segments
    .slice(1)
    .every(
      (s) =>
        s !== '*' &&
        s !== '..' &&
        !s.startsWith('?(') &&
        !s.startsWith('(') &&
        !s.includes(',') &&
        !SLICE.test(s) &&
        s !== '~' &&
        s !== '^',
    );
}

/** Compiles a JSONPath once (throws on a path that does not parse). */
export function compilePath(path: string): CompiledPath {
  const segments = JSONPath.toPathArray(path);
  const definite = isDefinite(segments);
  // Probe once so a path that cannot be evaluated fails at creation, not on the first row.
  JSONPath({ path: segments.slice(), json: {}, wrap: true, eval: 'safe' });
  return (doc) => {
    if (doc === null || doc === undefined || typeof doc !== 'object') {
      if (segments.length === 1) return doc;
      if (definite) throw new PathNotFoundError(`no value at path '${path}' in a JSON ${doc === null ? 'null' : typeof doc}`);
      return [];
    }
    const found = JSONPath({ path: segments.slice(), json: doc, wrap: true, eval: 'safe' }) as unknown[];
    if (!definite) return found;
    if (found.length === 0) throw new PathNotFoundError(`no value at path '${path}'`);
    return found[0];
  };
}
