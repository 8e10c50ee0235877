export * from './server.js';
export * from './job-master.js';
export * from './pipeline-master.js';
export * from './checkpoint-coordinator.js';
export * from './scheduler.js';
export * from './gateways.js';
export * from './metrics.js';
export { JobEventReporter, type JobEvent } from './job-events.js';
export { SIGNATURE_HEADER, signature, type DeliveryStats } from './event-delivery.js';
