import { BadRequest } from './rest-errors.js';

/** A parsed JSON object. */
export type JsonObject = Record<string, unknown>;

/**
 * SeaTunnel's clients send job ids as JSON numbers (`"jobId": 733584788375666689`), beyond what
 * a double holds exactly; they are read as the digits written.
 */
const BIG_JOB_ID = /("jobId"\s*:\s*)(\d{16,})(?=\s*[,}\]])/g;

/**
 * Parses a JSON request body, or refuses it naming what it was and where it broke. A body that
 * nests deeper than `maxDepth` objects and lists is refused too: JSON.parse copes with any
 * depth, but JSON.stringify and every walk after it recurse.
 */
export function parseJsonBody(text: string | undefined, what: string, maxDepth: number): unknown {
  if (text === undefined || text.trim() === '') throw new BadRequest(`${what} is empty`);
  let value: unknown;
  try {
    value = JSON.parse(text.replace(BIG_JOB_ID, '$1"$2"')) as unknown;
  } catch (err) {
    throw new BadRequest(`${what} is not valid JSON: ${(err as Error).message}`);
  }
  if (depthOf(value, maxDepth) > maxDepth)
    throw new BadRequest(`${what} nests objects and lists deeper than ${maxDepth} levels (tideway.limits.max-config-depth)`);
  return value;
}

/** How deep objects and lists nest in a parsed JSON value, counting no further than `limit` + 1 (no recursion). */
function depthOf(root: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[root, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > limit) return depth + 1;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return deepest;
}
