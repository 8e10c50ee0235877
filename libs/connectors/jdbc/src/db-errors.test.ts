import { describe, expect, it } from 'vitest';
import { ErrorCode, TidewayError } from '@tideway/common';
import { externalError, isRowLevelDbError, rowLevelError } from './db-errors.js';

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

describe('isRowLevelDbError (env.sink_error_handler)', () => {
  it("judges a row's own refusals by SQLSTATE class 22 or 23, as SeaTunnel's Jdbc sink does", () => {
    const pg = (code: string) => Object.assign(new Error('pg'), { code });
    const my = (code: string, sqlState: string) => Object.assign(new Error('mysql'), { code, sqlState });
    for (const e of [pg('23505'), pg('22001'), pg('23502'), my('ER_DUP_ENTRY', '23000'), my('ER_DATA_TOO_LONG', '22001')])
      expect(isRowLevelDbError(e)).toBe(true);
    for (const code of ['SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_CONSTRAINT_NOTNULL', 'SQLITE_MISMATCH'])
      expect(isRowLevelDbError(pg(code))).toBe(true);
    // Not the row's: the server away, a missing table, a lock, a syntax error, no privilege
    for (const e of [
      pg('ECONNRESET'),
      pg('EPIPE'),
      pg('42P01'),
      pg('40P01'),
      pg('42601'),
      pg('42501'),
      my('ER_NO_SUCH_TABLE', '42S02'),
      new Error('x'),
    ])
      expect(isRowLevelDbError(e)).toBe(false);
    expect(isRowLevelDbError(new TidewayError(ErrorCode.VALUE_CONVERSION, 'cannot convert'))).toBe(true);
    expect(isRowLevelDbError(new TidewayError(ErrorCode.EXTERNAL_SYSTEM, 'away'))).toBe(false);
  });

  it("judges Firebird's by their GDS codes: a duplicate, a NOT NULL, an overflow are the row's; a missing table, a lock, a lost connection are not", () => {
    const fb = (gdscode: number) => Object.assign(new Error('firebird'), { gdscode });
    for (const code of [335544665, 335544347, 335544880, 335544321, 335544334, 335544558, 335544466])
      expect(isRowLevelDbError(fb(code)), String(code)).toBe(true);
    // table unknown (isc_dsql_relation_err), lock conflict (isc_lock_conflict), deadlock, no permission, connection lost
    for (const code of [335544580, 335544345, 335544336, 335544352, 335544726])
      expect(isRowLevelDbError(fb(code)), String(code)).toBe(false);
    // isc_dsql_error, by the SQLCODE its text carries: a string right truncation is the row's, an unknown column is not
    const dsql = (message: string) => Object.assign(new Error(message), { gdscode: 335544569 });
    expect(
      isRowLevelDbError(dsql('Dynamic SQL Error, SQL error code = -303, Arithmetic exception, numeric overflow, or string truncation')),
    ).toBe(true);
    expect(isRowLevelDbError(dsql('Dynamic SQL Error, SQL error code = -206, Column unknown, K'))).toBe(false);
  });

  it('a refused row carries the database message and its SQLSTATE', () => {
    const e = rowLevelError(Object.assign(new Error('value too long for type character varying(5)'), { code: '22001' }));
    expect(e.name).toBe('DatabaseError');
    expect((e as Error & { code: string }).code).toBe('22001');
    expect(e.message).toBe('value too long for type character varying(5) [22001]');
  });
});
