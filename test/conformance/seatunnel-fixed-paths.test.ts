/**
 * SeaTunnel's own job configs write to fixed folders (/tmp/seatunnel, /tmp/hive/warehouse, the
 * extra set's fixture paths) and their cases clear them, so the suites that run them share this
 * one file: they run one after another, never beside each other, while other files run in
 * parallel (vitest.config.ts).
 */
import './seatunnel-cases.suite.js';
import './seatunnel-extra.suite.js';
import '../cluster/seatunnel-fault-tolerance.suite.js';
