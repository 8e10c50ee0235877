import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LOG_LEVELS, configureJobLogs, stopJobLogs } from '@tideway/common';
import type { EngineConfig } from '@tideway/config';

/** The folder of the per-job log files (tideway.logs.dir). */
export function jobLogDir(engine: EngineConfig): string {
  const dir = engine.tideway.logs.dir;
  return dir ? resolve(dir) : join(tmpdir(), 'tideway', 'log');
}

/**
 * This process keeps the lines it logs for each job in a file per job (tideway.logs), named by
 * its address (`local` in local mode) and role; returns what stops it.
 */
export function keepJobLogs(engine: EngineConfig, node: string, role: 'coordinator' | 'worker' | 'all'): () => Promise<void> {
  const l = engine.tideway.logs;
  configureJobLogs({
    dir: jobLogDir(engine),
    node,
    role,
    level: LOG_LEVELS[l.level],
    maxFileBytes: l.maxFileBytes,
    expireMs: engine.historyJobExpireMinutes * 60_000,
  });
  return () => {
    stopJobLogs();
    return Promise.resolve();
  };
}
