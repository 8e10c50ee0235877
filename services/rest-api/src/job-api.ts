import type { JobClient } from '@tideway/client';

/**
 * What the REST API needs of JobService, as promises: the methods of @tideway/client's JobClient
 * that it calls, so the REST API talks to the coordinator exactly as the CLI does: over gRPC at
 * the coordinator's address, and (with HA) to whichever coordinator leads, so a follower answers
 * for the leader. Errors are TidewayErrors with the coordinator's codes. `watch` sends WatchJob's
 * events until the job ends (across a leader change) or its signal aborts; the dashboard pushes
 * them to the browser.
 */
export type JobApi = Pick<
  JobClient,
  | 'submit'
  | 'plan'
  | 'get'
  | 'list'
  | 'cancel'
  | 'savepoint'
  | 'checkpoint'
  | 'metrics'
  | 'overview'
  | 'watch'
  | 'logs'
  | 'drain'
  | 'undrain'
>;
