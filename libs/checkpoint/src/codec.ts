import { createHash } from 'node:crypto';
import { Packr } from 'msgpackr';
import { ErrorCode, TidewayError } from '@tideway/common';

/**
 * The checkpoint file format. Every stored file (checkpoint data and the "latest" pointer)
 * is a 46-byte header followed by a msgpackr payload (record extension):
 *
 * | offset | size | content                                   |
 * |--------|------|-------------------------------------------|
 * | 0      | 4    | magic `TWCP`                              |
 * | 4      | 1    | format version (1)                        |
 * | 5      | 1    | content kind: 1 checkpoint, 2 pointer     |
 * | 6      | 32   | SHA-256 of the payload                    |
 * | 38     | 8    | payload length, unsigned big-endian       |
 * | 46     | n    | payload                                   |
 *
 * A file whose magic, version, kind, length or checksum does not match is corrupt; nothing
 * from it is trusted.
 */
export const FORMAT_VERSION = 1;
const MAGIC = Buffer.from('TWCP', 'ascii');
const HEADER_SIZE = 46;

/** What a stored file holds. */
export const ContentKind = { CHECKPOINT: 1, POINTER: 2 } as const;
export type ContentKind = (typeof ContentKind)[keyof typeof ContentKind];

// bigint stays bigint, Map stays Map, Uint8Array stays bytes: the state codecs of connectors rely on it.
const packr = new Packr({ useRecords: true, mapsAsObjects: false, int64AsType: 'bigint', useBigIntExtension: true, moreTypes: true });

/** A stored file that fails its header or checksum check. */
export class CorruptCheckpointError extends TidewayError {
  override readonly name = 'CorruptCheckpointError';
  constructor(key: string, reason: string) {
    super(ErrorCode.CHECKPOINT_CORRUPT, `Checkpoint file '${key}' is corrupt: ${reason}.`, { details: { key } });
  }
}

/** Encodes a value as header + payload. */
export function encodeStored(kind: ContentKind, value: unknown): Uint8Array {
  const payload = packr.pack(value);
  const out = Buffer.allocUnsafe(HEADER_SIZE + payload.length);
  MAGIC.copy(out, 0);
  out[4] = FORMAT_VERSION;
  out[5] = kind;
  createHash('sha256').update(payload).digest().copy(out, 6);
  out.writeBigUInt64BE(BigInt(payload.length), 38);
  payload.copy(out, HEADER_SIZE);
  return out;
}

/** Verifies header and checksum, then decodes; throws CorruptCheckpointError naming `key`. */
export function decodeStored(key: string, kind: ContentKind, bytes: Uint8Array): unknown {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < HEADER_SIZE)
    throw new CorruptCheckpointError(key, `it has ${buf.length} bytes, less than the ${HEADER_SIZE}-byte header`);
  if (!buf.subarray(0, 4).equals(MAGIC)) throw new CorruptCheckpointError(key, 'its header does not start with TWCP');
  if (buf[4] !== FORMAT_VERSION) throw new CorruptCheckpointError(key, `its format version ${buf[4]} is not ${FORMAT_VERSION}`);
  if (buf[5] !== kind) throw new CorruptCheckpointError(key, `it holds content kind ${buf[5]}, expected ${kind}`);
  const length = buf.readBigUInt64BE(38);
  if (length !== BigInt(buf.length - HEADER_SIZE)) {
    throw new CorruptCheckpointError(key, `its header says ${length} payload bytes but ${buf.length - HEADER_SIZE} follow`);
  }
  const payload = buf.subarray(HEADER_SIZE);
  const digest = createHash('sha256').update(payload).digest();
  if (!digest.equals(buf.subarray(6, 38))) throw new CorruptCheckpointError(key, 'its SHA-256 checksum does not match');
  try {
    return packr.unpack(payload);
  } catch (err) {
    throw new CorruptCheckpointError(key, `its payload does not decode (${(err as Error).message})`);
  }
}
