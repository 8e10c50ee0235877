/**
 * The spare task thread alone, without the worker's services: `tideway run` imports this first,
 * so that it can start the thread before the rest of the CLI loads (docs/decisions/0096).
 */
export { SpareTaskThread } from '@tideway/runtime/task-group-thread';
