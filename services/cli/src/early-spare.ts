import { SpareTaskThread } from '@tideway/worker/spare-task-thread';
import { translateSeaTunnelArgv } from './seatunnel-argv.js';

let early: SpareTaskThread | undefined;

/**
 * For `tideway run` (or SeaTunnel's `-m local`): starts the local worker's spare task thread at
 * once, before the CLI's modules load, so that the thread's own loading (the runtime, then the
 * job's plugins when startLocalCluster asks) runs beside the main thread's instead of after it
 * (docs/decisions/0096). The thread shares the environment, so it sees the variables set later
 * from the engine config. Any other command starts nothing. A command line the CLI then refuses
 * exits the process, thread and all.
 */
export function startEarlySpare(argv: string[]): void {
  let command: string | undefined;
  try {
    command = translateSeaTunnelArgv(argv)[0];
  } catch {
    return; // the CLI reports the command line's error itself
  }
  if (command !== 'run') return;
  early = new SpareTaskThread(true);
  early.fill();
}

/** The spare thread startEarlySpare started, once (the local cluster's worker takes it). */
export function takeEarlySpare(): SpareTaskThread | undefined {
  const spare = early;
  early = undefined;
  return spare;
}
