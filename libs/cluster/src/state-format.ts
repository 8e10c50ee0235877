/**
 * The layout of the coordinators' state in Redis, as a number kept under `<prefix>format`.
 *
 * Format 1: the key layout of RedisStateStore's header (job hashes with `info` and `state` as
 * JSON, checkpoint pointers per pipeline, the active set and the ended sorted set, the epoch, the
 * leader, coordinators and tokens). Stores written before the number was kept have this same
 * layout: a store without the key is format 1, and is stamped 1 when a coordinator opens it.
 *
 * A change a coordinator of the previous version could not read raises the number. A coordinator
 * reads its own format and the one before it (a rolling upgrade runs both versions side by side
 * for a while, and the new leader takes over the old one's records); it refuses a newer format in
 * one sentence instead of misreading it. `pnpm gen:state-fixture` writes a fixture of the current
 * format under test/fixtures/state-store/; the fixture of every format still read stays there, and
 * libs/cluster/src/state-format.test.ts loads each one (docs/operations.md, "Rolling upgrade").
 */
export const STATE_FORMAT_VERSION = 1;

/** The oldest format this version reads. */
export const OLDEST_READABLE_STATE_FORMAT = 1;
