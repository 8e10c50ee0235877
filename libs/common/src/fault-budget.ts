import { mkdirSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A bounded number of injected faults shared by every thread and process of a test run: each
 * fault claims a slot by creating `fault-<n>` exclusively in a directory, so restarts and
 * parallel task groups never inject more than `max` faults in all. Used by Tideway's test
 * plugins (Sequence source, FaultInjector transform).
 */
export class FaultBudget {
  constructor(
    private readonly dir: string,
    private readonly max: number,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  /** Claims one fault; false once `max` have been claimed. */
  claim(): boolean {
    for (let n = 0; n < this.max; n++) {
      try {
        closeSync(openSync(join(this.dir, `fault-${n}`), 'wx'));
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    return false;
  }
}
