import { DATETIME_FUNCTIONS } from './datetime-functions.js';
import { NUMERIC_FUNCTIONS } from './numeric-functions.js';
import type { SqlFunction } from './registry.js';
import { STRING_FUNCTIONS } from './string-functions.js';
import { SYSTEM_FUNCTIONS } from './system-functions.js';

const BY_NAME = new Map<string, SqlFunction>();
for (const fn of [...STRING_FUNCTIONS, ...NUMERIC_FUNCTIONS, ...DATETIME_FUNCTIONS, ...SYSTEM_FUNCTIONS]) {
  for (const name of fn.names) BY_NAME.set(name, fn);
}

/** The function of that name (case-insensitive), or undefined. */
export function lookupFunction(name: string): SqlFunction | undefined {
  return BY_NAME.get(name.toLowerCase());
}

/** Every function name the Sql transform knows, for docs and error hints. */
export function functionNames(): string[] {
  return [...BY_NAME.keys()].sort();
}
