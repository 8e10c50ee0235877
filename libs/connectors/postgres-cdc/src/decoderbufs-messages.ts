import type { Place } from '@tideway/common';
import { ChangeKind, columnText, decodeDecoderbufs, rowChange, splitQualifiedName, standInRelation } from './decoderbufs.js';
import type { TrackedPgColumn } from './pg-schema.js';
import type { PgOutputMessage } from './pgoutput.js';

/** What the replication stream lends the decoderbufs translation. */
export interface DecoderbufsHost {
  /** Whether the stream keeps this table's changes (captured, or selected by the patterns). */
  captures(schema: string, table: string): boolean;
  /** The table's columns in the catalog now (type modifiers) and whether its replica identity is FULL. */
  describe(schema: string, table: string): Promise<{ columns: TrackedPgColumn[]; fullIdentity: boolean }>;
  /** The mapping a relation message made (undefined: not mapped, or not captured). */
  relation(oid: number): { readonly tableId: string; readonly names: readonly string[] } | undefined;
  /** Handles a message as pgoutput's. */
  handle(m: PgOutputMessage): void;
  /** Holds the messages arriving while `work` (a query) runs, then handles them in order. */
  whileResolving(what: string, work: Promise<void>): void;
  /** Puts a message first in line for when the resolution under way ends. */
  again(chunk: Buffer): void;
  readonly timeZone: string;
  readonly place: Place;
}

/**
 * decoderbufs messages turned into the pgoutput messages the stream handles. BEGIN and COMMIT
 * carry a transaction's bounds (COMMIT's WAL position is the end of its commit record, as
 * pgoutput's end LSN; BEGIN's is its first record's). decoderbufs has no relation messages: a
 * row change is preceded by a stand-in one (an id of ours) whenever its table's columns (names
 * and type oids) differ from those last seen, with their type modifiers and the replica identity
 * read from the catalog (a query: the message is handled again after it).
 */
export class DecoderbufsMessages {
  private readonly tables = new Map<string, { oid: number; signature: string; fullIdentity: boolean }>();

  constructor(private readonly host: DecoderbufsHost) {}

  /** One XLogData message (`chunk`, header included) at WAL position `at`. */
  onData(chunk: Buffer, at: bigint): void {
    const host = this.host;
    const msg = decodeDecoderbufs(chunk.subarray(25));
    switch (msg.kind) {
      case ChangeKind.CHANGE_KIND_BEGIN:
        host.handle({
          tag: 'begin',
          finalLsn: undefined,
          firstLsn: at,
          xid: msg.xid ?? 0,
          // Microseconds since 1970 (decoderbufs converts PostgreSQL's own epoch).
          commitTimeMs: msg.commitTimeMicros ? Number(msg.commitTimeMicros / 1000n) : undefined,
        });
        return;
      case ChangeKind.CHANGE_KIND_COMMIT:
        host.handle({ tag: 'commit', commitLsn: at, endLsn: at });
        return;
      case ChangeKind.CHANGE_KIND_INSERT:
      case ChangeKind.CHANGE_KIND_UPDATE:
      case ChangeKind.CHANGE_KIND_DELETE:
        break;
      default:
        return;
    }
    const { schema, table } = splitQualifiedName(msg.table ?? '');
    if (!host.captures(schema, table)) return;
    const key = `${schema}.${table}`;
    const known = this.tables.get(key);
    const shape = msg.newRow.length > 0 ? msg.newRow : undefined;
    const signature = shape?.map((c) => `${c.name}:${c.typeOid}`).join(',');
    if (!known || (signature !== undefined && signature !== known.signature)) {
      host.whileResolving(
        `reading the columns of table ${key}`,
        host.describe(schema, table).then(({ columns, fullIdentity }) => {
          const relation = standInRelation(shape, columns);
          const oid = known?.oid ?? -(this.tables.size + 1);
          this.tables.set(key, { oid, signature: relation.map((c) => `${c.name}:${c.typeOid}`).join(','), fullIdentity });
          // Handled again once the relation is mapped (that may need a query of its own).
          host.again(chunk);
          host.handle({ tag: 'relation', oid, schema, name: table, columns: relation });
        }),
      );
      return;
    }
    const r = host.relation(known.oid);
    const change = r && rowChange(msg, known.oid, r.names, known.fullIdentity, (v) => columnText(v, host.timeZone, r.tableId, host.place));
    if (change) host.handle(change);
  }
}
