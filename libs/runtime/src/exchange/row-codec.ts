import { Packr } from 'msgpackr';
import { isSchemaChangeEvent, type Row, type SchemaChangeEvent } from '@tideway/api';

/**
 * Row batches on the wire: msgpackr with its record extension (the row shape is written once
 * per message), measured fastest for row batches here (stack.md). bigint, Map, Uint8Array and
 * null survive unchanged.
 */
const packr = new Packr({ useRecords: true, moreTypes: true });

export function encodeRows(rows: readonly Row[]): Uint8Array {
  return packr.pack(rows);
}

export function decodeRows(bytes: Uint8Array): Row[] {
  return packr.unpack(bytes) as Row[];
}

/** A schema change on a shuffle channel: a batch of its own, in order with the rows around it. */
export function encodeSchemaChange(event: SchemaChangeEvent): Uint8Array {
  return packr.pack(event);
}

/** A shuffle batch: rows, or a schema change sent by encodeSchemaChange. */
export function decodeExchanged(bytes: Uint8Array): Row[] | SchemaChangeEvent {
  const v = packr.unpack(bytes) as unknown;
  return isSchemaChangeEvent(v) ? v : (v as Row[]);
}
