export * from './descriptor.js';
export * from './protocol.js';
export * from './metrics.js';
export * from './task-group-thread.js';
export * from './wire/execution-state.js';
export * from './wire/payloads.js';
export { INITIAL_CREDITS, dataExchangeHandlers, type ReceivingTaskGroup, type ReceivingTaskGroups } from './exchange/channel-receiver.js';
export { RowErrorGuard, isRowLevelError, type RowErrorPolicy, type RowErrorCounts } from './row-errors.js';
export { BusyTimeMeter, type TaskBusynessSample } from './busy-time.js';
export {
  CALL_KINDS,
  CALL_KIND_METHODS,
  CallClock,
  NAMED_CALLS,
  overdueCall,
  pluginPlace,
  type CallKind,
  type CallInProgress,
  type NamedCall,
} from './call-clock.js';
