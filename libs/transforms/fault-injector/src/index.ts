import type { PluginContext, PluginSpec, Row, Transform, TransformFactory } from '@tideway/api';
import { ErrorCode, FaultBudget, TidewayError } from '@tideway/common';
import { isMainThread } from 'node:worker_threads';

export const faultInjectorSpec: PluginSpec = {
  options: [
    {
      name: 'probability',
      type: 'double',
      default: 0.01,
      min: 0,
      max: 1,
      description: 'Chance, per batch, of injecting a fault while the budget lasts.',
    },
    {
      name: 'max',
      type: 'int',
      required: true,
      min: 0,
      description: 'Fault budget: at most this many faults in the whole run (shared through dir).',
    },
    {
      name: 'min.rows',
      type: 'long',
      default: 0,
      min: 0,
      description: 'No fault before this many rows have passed through the task group.',
    },
    {
      name: 'dir',
      type: 'string',
      required: true,
      description: 'Directory holding the fault budget, shared by every task group and restart.',
    },
    {
      name: 'kinds',
      type: 'list',
      default: ['exception', 'thread-exit'],
      description:
        "What a fault does: 'exception' throws in the task group (as a failing writer would), 'thread-exit' ends the task group's worker thread abruptly (as a crash would).",
    },
  ],
  validate: (o) => {
    const bad = o.get<string[]>('kinds').find((k) => k !== 'exception' && k !== 'thread-exit');
    return bad ? `option 'kinds': unknown fault kind '${bad}'; use exception or thread-exit` : undefined;
  },
};

/**
 * Tideway's test transform (not in SeaTunnel): passes rows through unchanged and, with the
 * given probability per batch, injects a fault: an exception, or the abrupt end of the task
 * group's worker thread. A budget shared through a directory bounds the faults of a whole run.
 */
export const faultInjectorTransformFactory: TransformFactory = {
  type: 'transform',
  name: 'FaultInjector',
  description:
    "Tideway's test transform: passes rows through and injects faults (exceptions, thread crashes) from a shared budget, to prove failover.",
  spec: faultInjectorSpec,
  create(ctx: PluginContext): Transform {
    const o = ctx.options;
    const budget = new FaultBudget(o.get<string>('dir'), o.get<number>('max'));
    const probability = o.get<number>('probability');
    const kinds = o.get<string[]>('kinds');
    const minRows = o.get<number>('min.rows');
    let passed = 0;
    return {
      outputTables: () => [...ctx.inputTables],
      transform(rows: readonly Row[]): Row[] {
        passed += rows.length;
        if (passed > minRows && Math.random() < probability && budget.claim()) {
          const kind = kinds[Math.floor(Math.random() * kinds.length)];
          // Ending the process from a worker thread ends only that thread: a task group crash.
          if (kind === 'thread-exit' && !isMainThread) process.exit(17);
          throw new TidewayError(ErrorCode.TASK_FAILED, 'injected fault in FaultInjector', { retryable: true });
        }
        return rows as Row[];
      },
    };
  },
};
