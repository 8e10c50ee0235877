/**
 * Avro longs as JavaScript bigints (avsc's own long type stops at 2^53): the options to give
 * avsc's `types.LongType.__with`, shared by the Kafka connector's avro format and Iceberg's
 * manifests (snapshot ids use all 63 bits). A plain object, so this package needs no avsc.
 */
export const BIGINT_AVRO_LONG = {
  fromBuffer: (buf: Buffer) => buf.readBigInt64LE(),
  toBuffer: (n: bigint) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n));
    return buf;
  },
  fromJSON: (x: number | string) => BigInt(x),
  toJSON: (n: bigint) => Number(n),
  isValid: (n: unknown) => typeof n === 'bigint' || (typeof n === 'number' && Number.isInteger(n)),
  compare: (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0),
};
