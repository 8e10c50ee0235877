import { formatType } from '@tideway/api';
import type { Compiled } from '../compiled.js';
import { comparatorFor } from '../compare.js';
import { coerce } from '../cast.js';
import { commonType } from '../sql-types.js';
import type { SqlFunction } from './registry.js';

function common(a: readonly Compiled[]) {
  let t = a[0].type;
  for (const c of a.slice(1)) {
    const n = commonType(t, c.type);
    if (!n) return `arguments have incompatible types ${formatType(t)} and ${formatType(c.type)}`;
    t = n;
  }
  return t;
}

const coalesce: SqlFunction = {
  names: ['coalesce', 'ifnull', 'nvl'],
  minArgs: 1,
  maxArgs: Infinity,
  args: ['any'],
  resultType: common,
  build: (a, type) => {
    const evs = a.map((c) => coerce(c, type));
    return (f) => {
      for (let i = 0; i < evs.length; i++) {
        const v = evs[i](f);
        if (v != null) return v;
      }
      return null;
    };
  },
};

/** The system functions of SeaTunnel's Sql transform (CAST and CASE are syntax, see compile-expr). */
export const SYSTEM_FUNCTIONS: SqlFunction[] = [
  coalesce,
  {
    names: ['nullif'],
    minArgs: 2,
    maxArgs: 2,
    args: ['any'],
    resultType: (a) => a[0].type,
    nullableResult: true,
    build: (a) => {
      const cmp = comparatorFor(a[0].type, a[1].type);
      const [e0, e1] = [a[0].ev, a[1].ev];
      return (f) => {
        const x = e0(f);
        if (x == null) return null;
        const y = e1(f);
        return y != null && cmp(x, y) === 0 ? null : x;
      };
    },
  },
];
