// The checker lives in libs/testing (tideway chaos uses it too); the suites import it from here.
export { SequenceTally, checkSequenceOutput, type SequenceReport } from '@tideway/testing';
