import { describe, expect, it } from 'vitest';
import { ErrorCode } from '@tideway/common';
import { externalError } from './db-errors.js';

const place = { plugin: 'Jdbc', option: 'url' };

describe('externalError', () => {
  it('reports a refused login and a missing database as configuration errors: a restart cannot cure them', () => {
    for (const code of ['28P01', 'ER_ACCESS_DENIED_ERROR', '3D000', 'ER_BAD_DB_ERROR']) {
      const e = externalError('connecting', { code, message: 'denied' }, place, { user: 'bob' });
      expect(e.code, code).toBe(ErrorCode.CONFIG_BAD_VALUE);
      expect(e.retryable).toBe(false);
    }
  });

  it('reports a missing table as a schema error', () => {
    expect(externalError('reading', { code: '42P01', message: 'relation "t" does not exist' }, place).code).toBe(ErrorCode.SCHEMA);
    expect(externalError('reading', { code: 'ER_NO_SUCH_TABLE', message: "Table 'd.t' doesn't exist" }, place).code).toBe(ErrorCode.SCHEMA);
  });

  it('keeps other driver errors external, retryable when the connection dropped', () => {
    const dropped = externalError('writing', { code: 'ECONNRESET', message: 'reset' }, place);
    expect(dropped.code).toBe(ErrorCode.EXTERNAL_SYSTEM);
    expect(dropped.retryable).toBe(true);
    expect(externalError('writing', { code: '23505', message: 'duplicate key' }, place).code).toBe(ErrorCode.EXTERNAL_SYSTEM);
  });
});
