/**
 * The sink contract (libs/connector-contract) on Console and Assert: neither has a target to
 * read back, so only the refusal of bad options applies (the rest is not applicable, with the
 * reason, in docs/plugins.md's table).
 */
import { assertSinkFactory } from '@tideway/connector-assert';
import { consoleSinkFactory } from '@tideway/connector-console';
import { sinkContract } from '@tideway/connector-contract';
import { ASSERT_NOT_APPLICABLE, CONSOLE_NOT_APPLICABLE } from './contract-table.js';

const nothing = () => Promise.resolve([]);

sinkContract({
  name: 'Console',
  factory: consoleSinkFactory,
  delivery: 'at-least-once',
  target: () => ({ options: { 'log.print.data': false }, readBack: nothing }),
  notApplicable: CONSOLE_NOT_APPLICABLE,
  badOptions: [{ options: { 'log.print.delay.ms': -5 }, option: 'log.print.delay.ms' }],
});

sinkContract({
  name: 'Assert',
  factory: assertSinkFactory,
  delivery: 'at-least-once',
  target: () => ({ options: { rules: { row_rules: [{ rule_type: 'MIN_ROW', rule_value: 0 }] } }, readBack: nothing }),
  notApplicable: ASSERT_NOT_APPLICABLE,
  badOptions: [
    { options: { rules: undefined }, option: 'rules' },
    { options: { rules: { row_rules: [{ rule_type: 'MOST_ROWS', rule_value: 1 }] } }, option: 'rules' },
  ],
});
