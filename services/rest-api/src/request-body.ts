import { BadRequest } from './rest-errors.js';

/** A parsed JSON object. */
export type JsonObject = Record<string, unknown>;

/**
 * SeaTunnel's clients send job ids as JSON numbers (`"jobId": 733584788375666689`), beyond what
 * a double holds exactly; they are read as the digits written.
 */
const BIG_JOB_ID = /("jobId"\s*:\s*)(\d{16,})(?=\s*[,}\]])/g;

/** Parses a JSON request body, or refuses it naming what it was and where it broke. */
export function parseJsonBody(text: string | undefined, what: string): unknown {
  if (text === undefined || text.trim() === '') throw new BadRequest(`${what} is empty`);
  try {
    return JSON.parse(text.replace(BIG_JOB_ID, '$1"$2"')) as unknown;
  } catch (err) {
    throw new BadRequest(`${what} is not valid JSON: ${(err as Error).message}`);
  }
}
