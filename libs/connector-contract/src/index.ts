/**
 * The connector contract suite: the promises libs/api's plugin.ts makes to sink authors, checked
 * against a real sink and its real target. A connector's test file calls sinkContract() with a
 * SinkSubject (its factory, how to make a fresh target and read back what was committed, and the
 * checks that do not apply, with the reason). docs/plugins.md shows how and lists every built-in.
 */
export { sinkContract, sourceContract, type SinkContractOptions } from './register.js';
export {
  SOURCE_CHECKS,
  SOURCE_CHECK_TITLES,
  SOURCE_CHECK_FUNCTIONS,
  type SourceCheck,
  type SourceSubject,
  type SourceTarget,
  type ExpectedRow,
} from './source-checks.js';
export { readToEnd, type SourceRunOptions } from './source-job.js';
export {
  SINK_CHECKS,
  SINK_CHECK_TITLES,
  ITEMS,
  PARTS,
  itemBatches,
  itemRow,
  partRow,
  type SinkCheck,
  type SinkSubject,
  type SinkTarget,
  type Delivery,
  type BadOption,
  type ReadRow,
} from './subject.js';
export {
  SINK_CHECK_FUNCTIONS,
  checkAbortAfterPrepare,
  checkBadOptions,
  checkCancellation,
  checkCommitIdempotence,
  checkExactlyOnceRestore,
  checkFailureInEveryMethod,
  checkMultiTable,
  checkSchemaChange,
} from './sink-checks.js';
export { SinkJob, FailurePlan, PlantedFailure, runToEnd, type Step, type FailingMethod } from './sink-job.js';
