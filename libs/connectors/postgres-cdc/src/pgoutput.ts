/**
 * Decoding of pgoutput (protocol version 1) messages, as documented in PostgreSQL's "Logical
 * Replication Message Formats". Column values stay in PostgreSQL's text output form, so the
 * Jdbc connector's decoders turn them into SeaTunnel values exactly (no Date or float detour).
 */

/** A column value in a tuple: null, unchanged TOAST (not sent), or text. */
export const UNCHANGED_TOAST = Symbol('unchanged-toast');
export type TupleValue = string | null | typeof UNCHANGED_TOAST;

export interface RelationColumn {
  readonly name: string;
  readonly isKey: boolean;
  readonly typeOid: number;
  readonly typmod: number;
}

/** PostgreSQL's timestamps count from 2000-01-01 UTC. */
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);

export type PgOutputMessage =
  /** `finalLsn`: where the commit record is (pgoutput); absent (decoderbufs), `firstLsn`: where the transaction's first record is. */
  | {
      readonly tag: 'begin';
      readonly finalLsn: bigint | undefined;
      readonly firstLsn?: bigint;
      readonly xid: number;
      /** The commit time (epoch ms): pgoutput's Begin carries it; decoderbufs each row's. */
      readonly commitTimeMs?: number;
    }
  | { readonly tag: 'commit'; readonly commitLsn: bigint; readonly endLsn: bigint }
  | { readonly tag: 'relation'; readonly oid: number; readonly schema: string; readonly name: string; readonly columns: RelationColumn[] }
  | { readonly tag: 'insert'; readonly oid: number; readonly after: TupleValue[] }
  | {
      readonly tag: 'update';
      readonly oid: number;
      readonly before: TupleValue[] | null;
      readonly keyOnly: boolean;
      readonly after: TupleValue[];
    }
  | { readonly tag: 'delete'; readonly oid: number; readonly before: TupleValue[]; readonly keyOnly: boolean }
  | { readonly tag: 'other' };

class Cursor {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  u8(): number {
    return this.buf[this.pos++];
  }
  i16(): number {
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  i32(): number {
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  u64(): bigint {
    const v = this.buf.readBigUInt64BE(this.pos);
    this.pos += 8;
    return v;
  }
  cstring(): string {
    const end = this.buf.indexOf(0, this.pos);
    const s = this.buf.toString('utf8', this.pos, end);
    this.pos = end + 1;
    return s;
  }
  tuple(): TupleValue[] {
    const n = this.i16();
    const out = new Array<TupleValue>(n);
    for (let i = 0; i < n; i++) {
      const kind = this.u8();
      if (kind === 0x6e /* n */) out[i] = null;
      else if (kind === 0x75 /* u */) out[i] = UNCHANGED_TOAST;
      else {
        const len = this.i32();
        out[i] = this.buf.toString('utf8', this.pos, this.pos + len);
        this.pos += len;
      }
    }
    return out;
  }
}

/** Decodes one pgoutput message (the payload of an XLogData message). */
export function decodePgOutput(buf: Buffer): PgOutputMessage {
  const c = new Cursor(buf);
  const tag = c.u8();
  switch (tag) {
    case 0x42: {
      // B: final LSN, commit time, xid
      const finalLsn = c.u64();
      // Microseconds since 2000-01-01 UTC.
      const commitTimeMs = Number(c.u64() / 1000n) + PG_EPOCH_MS;
      return { tag: 'begin', finalLsn, commitTimeMs, xid: c.i32() >>> 0 };
    }
    case 0x43: {
      // C: flags, commit LSN, end LSN, commit time
      c.u8();
      const commitLsn = c.u64();
      return { tag: 'commit', commitLsn, endLsn: c.u64() };
    }
    case 0x52: {
      // R: oid, namespace, name, replica identity, columns
      const oid = c.i32() >>> 0;
      const schema = c.cstring();
      const name = c.cstring();
      c.u8();
      const n = c.i16();
      const columns: RelationColumn[] = [];
      for (let i = 0; i < n; i++) {
        const flags = c.u8();
        columns.push({ isKey: (flags & 1) !== 0, name: c.cstring(), typeOid: c.i32() >>> 0, typmod: c.i32() });
      }
      return { tag: 'relation', oid, schema, name, columns };
    }
    case 0x49: {
      // I: oid, 'N', tuple
      const oid = c.i32() >>> 0;
      c.u8();
      return { tag: 'insert', oid, after: c.tuple() };
    }
    case 0x55: {
      // U: oid, optional 'K'/'O' old tuple, 'N' new tuple
      const oid = c.i32() >>> 0;
      const kind = c.u8();
      let before: TupleValue[] | null = null;
      const keyOnly = kind === 0x4b;
      if (kind === 0x4b || kind === 0x4f) {
        before = c.tuple();
        c.u8(); // the 'N' before the new tuple
      }
      return { tag: 'update', oid, before, keyOnly, after: c.tuple() };
    }
    case 0x44: {
      // D: oid, 'K'/'O', old tuple
      const oid = c.i32() >>> 0;
      const keyOnly = c.u8() === 0x4b;
      return { tag: 'delete', oid, before: c.tuple(), keyOnly };
    }
    default:
      // Origin, Type, Truncate, Message: nothing a row stream carries.
      return { tag: 'other' };
  }
}
