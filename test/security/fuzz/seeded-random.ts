import { SeededRandom as ChaosRandom } from '../../../services/cli/src/chaos/random.js';

/**
 * The chaos runs' seeded generator (mulberry32) with what the fuzz needs: the same seed makes
 * the same requests in the same order, so a failure reproduces with TIDEWAY_FUZZ_SEED=<seed>.
 */
export class SeededRandom extends ChaosRandom {
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }

  /** Text of printable ASCII, with now and then a character that needs escaping. */
  text(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++)
      s += this.chance(0.05)
        ? this.pick(['"', '\\', '\n', '{', '}', '$', '\u0000', '\u00e9', '\u{1F600}'])
        : String.fromCharCode(32 + this.int(95));
    return s;
  }
}

/** The seed of this run: TIDEWAY_FUZZ_SEED when set, a new one otherwise. */
export function fuzzSeed(): number {
  const given = process.env.TIDEWAY_FUZZ_SEED;
  return given ? Number(given) >>> 0 : Math.floor(Math.random() * 2 ** 32);
}
