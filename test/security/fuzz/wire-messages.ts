import type { SeededRandom } from './seeded-random.js';
import { badConfig, badNumber, unknownJobId } from './bad-values.js';

/** Bytes of one protobuf varint. */
function varint(n: bigint): Buffer {
  const out: number[] = [];
  let v = BigInt.asUintN(64, n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Buffer.from(out);
}

const key = (field: number, wire: number) => varint(BigInt((field << 3) | wire));

/**
 * A message in valid protobuf wire format with random fields: any field number, huge and
 * negative varints (wrong enum values, counts), strings that are not UTF-8, nested messages,
 * fixed-width numbers. It decodes; what it means is nonsense.
 */
export function randomWireMessage(rng: SeededRandom, depth = 0): Buffer {
  const parts: Buffer[] = [];
  const fields = rng.int(8);
  for (let i = 0; i < fields; i++) {
    const field = rng.chance(0.8) ? 1 + rng.int(12) : 1 + rng.int(536870911);
    switch (rng.int(5)) {
      case 0:
        parts.push(key(field, 0), varint(rng.pick([0n, 1n, 7n, 999n, -1n, 2n ** 63n, 2n ** 64n - 1n, BigInt(rng.int(2 ** 31))])));
        break;
      case 1:
        parts.push(key(field, 1), rng.bytes(8));
        break;
      case 2: {
        const body =
          depth < 4 && rng.chance(0.4)
            ? randomWireMessage(rng, depth + 1)
            : rng.chance(0.5)
              ? Buffer.from(rng.pick([unknownJobId(rng), badConfig(rng).text, rng.text(rng.int(64))]))
              : rng.bytes(rng.int(64));
        parts.push(key(field, 2), varint(BigInt(body.length)), body);
        break;
      }
      case 3:
        parts.push(key(field, 5), rng.bytes(4));
        break;
      default: {
        // A repeated field packed with varints.
        const items = Buffer.concat(Array.from({ length: rng.int(10) }, () => varint(BigInt(rng.int(2 ** 20)))));
        parts.push(key(field, 2), varint(BigInt(items.length)), items);
      }
    }
  }
  return Buffer.concat(parts);
}

/** Bytes that are not a valid protobuf message: bad wire types, lengths past the end, cut varints. */
export function invalidWireMessage(rng: SeededRandom): Buffer {
  const good = randomWireMessage(rng);
  switch (rng.int(5)) {
    case 0:
      return rng.bytes(1 + rng.int(200));
    case 1:
      return Buffer.concat([good, key(1 + rng.int(12), rng.pick([3, 4, 6, 7]))]);
    case 2:
      return Buffer.concat([good, key(1 + rng.int(12), 2), varint(BigInt(1000 + rng.int(1e6))), rng.bytes(rng.int(10))]);
    case 3:
      return Buffer.concat([good, key(1 + rng.int(12), 0), Buffer.from([0xff, 0xff, 0xff])]);
    default:
      return Buffer.concat([key(1, 0), Buffer.alloc(11, 0xff), Buffer.from([0x01])]);
  }
}

/**
 * A decoded message (the defaults of its type) with its fields given wrong values of the right
 * JavaScript type: unknown job ids and broken configs in strings, negative and huge numbers
 * (wrong enum values included), random bytes, random map entries.
 */
export function mutateMessage(defaults: Record<string, unknown>, rng: SeededRandom, knownJobId?: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...defaults };
  for (const [name, value] of Object.entries(defaults)) {
    if (!rng.chance(0.6)) continue;
    if (typeof value === 'string') {
      if (/config_?text/i.test(name)) out[name] = badConfig(rng).text;
      else if (/format/i.test(name)) out[name] = rng.pick(['hocon', 'json', 'yaml', '', rng.text(5)]);
      else if (knownJobId !== undefined && /jobId/i.test(name) && rng.chance(0.3)) out[name] = knownJobId;
      else out[name] = unknownJobId(rng);
    } else if (typeof value === 'number') out[name] = badNumber(rng);
    else if (typeof value === 'boolean') out[name] = rng.chance(0.5);
    else if (Buffer.isBuffer(value)) out[name] = rng.bytes(rng.int(rng.chance(0.1) ? 100_000 : 200));
    else if (Array.isArray(value)) out[name] = [];
    else if (value === undefined || value === null) out[name] = undefined;
    else if (typeof value === 'object') {
      const map: Record<string, string> = {};
      for (let i = rng.int(4); i > 0; i--) map[rng.text(1 + rng.int(10))] = rng.text(rng.int(20));
      out[name] = map;
    }
  }
  return out;
}
