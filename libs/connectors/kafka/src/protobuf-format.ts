import type { DataType, PluginOptions } from '@tideway/api';
import { ConfigError, ErrorCode, onFirstUse } from '@tideway/common';
import type protobuf from 'protobufjs';

/** protobufjs, loaded by the first job with format = protobuf (about 14 ms of CPU at every import otherwise). */
const protobufjs = onFirstUse<typeof protobuf>('protobufjs', import.meta.url);

/**
 * SeaTunnel's `format = protobuf` for Kafka: each message value is one Protocol Buffers message of
 * the type `protobuf_message_name`, declared in the `.proto` text `protobuf_schema` (parsed by
 * protobufjs; SeaTunnel compiles it with protoc at run time). Columns map to the message's fields
 * as SeaTunnel maps them: a column to the field of its lower-cased name when written, of its
 * name when read; a row column to the nested message type of its name, held in the field of its
 * lower-cased name; maps and repeated fields from map and array columns. Proto3 scalar fields
 * equal to their default are left out, as Java's serializer does, so both engines write the same
 * bytes.
 */

type Column = { readonly name: string; readonly type: DataType };
type Convert = (v: unknown) => unknown;

const INT32 = new Set(['int32', 'sint32', 'sfixed32', 'uint32', 'fixed32', 'enum']);
const INT64 = new Set(['int64', 'sint64', 'sfixed64', 'uint64', 'fixed64']);

/** The proto field types a column type can be written to and read from. */
function fits(type: DataType, protoType: string): boolean {
  switch (type.kind) {
    case 'tinyint':
    case 'smallint':
    case 'int':
      return INT32.has(protoType) && protoType !== 'enum';
    case 'bigint':
      return INT64.has(protoType);
    case 'float':
      return protoType === 'float';
    case 'double':
      return protoType === 'double';
    case 'boolean':
      return protoType === 'bool';
    case 'string':
      return protoType === 'string';
    case 'bytes':
      return protoType === 'bytes';
    default:
      return false;
  }
}

export interface ProtobufSchema {
  readonly messageName: string;
  readonly schema: string;
}

/** Parses the schema and finds the message; a string says why it cannot be used. */
export function protobufType(s: ProtobufSchema): protobuf.Type | string {
  let root: protobuf.Root;
  try {
    root = protobufjs().parse(s.schema, { keepCase: true }).root;
  } catch (err) {
    return `protobuf_schema cannot be parsed: ${(err as Error).message}`;
  }
  root.resolveAll();
  const found = findMessage(root, s.messageName);
  return found ?? `protobuf_schema declares no message ${s.messageName}`;
}

function findMessage(ns: protobuf.NamespaceBase, name: string): protobuf.Type | undefined {
  const { Type, Namespace } = protobufjs();
  for (const nested of ns.nestedArray) {
    if (nested instanceof Type && nested.name === name) return nested;
  }
  for (const nested of ns.nestedArray) {
    if (nested instanceof Namespace && !(nested instanceof Type)) {
      const t = findMessage(nested, name);
      if (t) return t;
    }
  }
  return undefined;
}

/** What a column is in the message: its field (a row column: its field and nested type). */
interface Binding {
  readonly field: protobuf.Field;
  readonly nested?: protobuf.Type;
}

/** Why a column does not bind; `missing`: the message has no field for it (read as null by a source). */
interface Unbound {
  readonly problem: string;
  readonly missing: boolean;
}

function bind(message: protobuf.Type, column: Column, path: string, write: boolean, top: boolean): Binding | Unbound {
  const r = bindOrSay(message, column, path, write, top);
  return typeof r === 'string' ? { problem: r, missing: false } : r;
}

function bindOrSay(message: protobuf.Type, column: Column, path: string, write: boolean, top: boolean): Binding | Unbound | string {
  const missing = (problem: string): Unbound => ({ problem, missing: true });
  if (column.type.kind === 'row') {
    const { Type } = protobufjs();
    const nested = message.nestedArray.find((n): n is protobuf.Type => n instanceof Type && n.name === column.name);
    if (!nested) return missing(`row column '${path}' has no nested message type ${column.name} in message ${message.name}`);
    const field = message.fields[column.name.toLowerCase()];
    if (!field) return missing(`row column '${path}' has no field ${column.name.toLowerCase()} in message ${message.name}`);
    if (field.resolvedType !== nested) return `field ${field.name} of message ${message.name} is not of type ${column.name}`;
    return { field, nested };
  }
  const name = write && top ? column.name.toLowerCase() : column.name;
  const field = message.fields[name];
  if (!field) return missing(`column '${path}' has no field ${name} in message ${message.name}`);
  const t = column.type;
  if (t.kind === 'map') {
    if (!field.map) return `column '${path}' is a map, and field ${name} of message ${message.name} is not`;
    const f = field as unknown as protobuf.MapField;
    if (!fits(t.key, f.keyType) || !fits(t.value, f.type))
      return `column '${path}' (map<${t.key.kind}, ${t.value.kind}>) does not fit field ${name} (map<${f.keyType}, ${f.type}>)`;
    return { field };
  }
  if (t.kind === 'array') {
    if (!field.repeated || field.map) return `column '${path}' is an array, and field ${name} of message ${message.name} is not repeated`;
    if (!fits(t.element, field.type))
      return `column '${path}' (array<${t.element.kind}>) does not fit field ${name} (repeated ${field.type})`;
    return { field };
  }
  if (field.repeated || field.map) return `column '${path}' is a ${t.kind}, and field ${name} of message ${message.name} is repeated`;
  if (!fits(t, field.type))
    return `column '${path}' of type ${t.kind} does not fit field ${name} (${field.type}); the protobuf format takes integers, floats, booleans, strings, bytes, arrays, maps and rows`;
  return { field };
}

/** Why the columns cannot be written (or read) as the message, or undefined when they can. */
export function protobufColumnsProblem(message: protobuf.Type, columns: readonly Column[], write: boolean): string | undefined {
  const walk = (m: protobuf.Type, cols: readonly Column[], prefix: string, top: boolean): string | undefined => {
    for (const c of cols) {
      const path = `${prefix}${c.name}`;
      const b = bind(m, c, path, write, top);
      if ('problem' in b) {
        if (b.missing && !write) continue; // as SeaTunnel's reader: the column reads as null
        return b.problem;
      }
      if (c.type.kind === 'row') {
        const p = walk(b.nested!, c.type.fields, `${path}.`, false);
        if (p) return p;
      }
    }
    return undefined;
  };
  return walk(message, columns, '', true);
}

const isDefault = (v: unknown): boolean =>
  v === 0 ? Object.is(v, 0) : v === 0n || v === '' || v === false || (v instanceof Uint8Array && v.length === 0);

function toProto(type: DataType): Convert {
  switch (type.kind) {
    case 'tinyint':
      // As SeaTunnel's RowToProtobufConverter: Byte.toUnsignedInt.
      return (v) => (v as number) & 0xff;
    case 'bigint':
      return (v) => String(v);
    case 'bytes':
      return (v) => (v instanceof Uint8Array ? v : new Uint8Array(v as ArrayBuffer));
    case 'array': {
      const el = toProto(type.element);
      return (v) => (v as unknown[]).map(el);
    }
    case 'map': {
      const key = toProto(type.key);
      const val = toProto(type.value);
      return (v) => {
        const out: Record<string, unknown> = {};
        for (const [k, x] of v instanceof Map ? v : Object.entries(v as object)) out[String(key(k))] = val(x);
        return out;
      };
    }
    default:
      return (v) => v;
  }
}

function messageWriter(
  message: protobuf.Type,
  columns: readonly Column[],
  top: boolean,
): (fields: readonly unknown[]) => Record<string, unknown> {
  const parts = columns.map((c) => {
    const b = bind(message, c, c.name, true, top);
    if ('problem' in b) throw new Error(`protobuf format: ${b.problem}`); // refused at planning (protobufColumnsProblem)
    const proto3Scalar = !b.field.repeated && !b.field.map && !b.field.resolvedType && !b.field.hasPresence;
    if (c.type.kind === 'row') {
      const inner = messageWriter(b.nested!, c.type.fields, false);
      return { name: b.field.name, conv: (v: unknown) => b.nested!.create(inner(v as unknown[])), proto3Scalar: false };
    }
    return { name: b.field.name, conv: toProto(c.type), proto3Scalar };
  });
  return (fields) => {
    const obj: Record<string, unknown> = {};
    for (let i = 0; i < parts.length; i++) {
      const v = fields[i];
      if (v === null || v === undefined) continue;
      const p = parts[i];
      const x = p.conv(v);
      if (p.proto3Scalar && isDefault(x)) continue;
      obj[p.name] = x;
    }
    return obj;
  };
}

/** The columns' encoder: the row as one message of `message`'s type. */
export function compileProtobufEncoder(message: protobuf.Type, columns: readonly Column[]): (fields: readonly unknown[]) => Buffer {
  const write = messageWriter(message, columns, true);
  return (fields) => Buffer.from(message.encode(message.create(write(fields))).finish());
}

function fromProto(type: DataType): Convert {
  switch (type.kind) {
    case 'tinyint':
      return (v) => ((v as number) << 24) >> 24;
    case 'smallint':
      return (v) => ((v as number) << 16) >> 16;
    case 'bigint':
      return (v) => BigInt(String(v));
    case 'bytes':
      return (v) => new Uint8Array(v as Uint8Array);
    case 'array': {
      const el = fromProto(type.element);
      return (v) => ((v as unknown[] | undefined) ?? []).map(el);
    }
    case 'map': {
      const key = fromProto(type.key);
      const val = fromProto(type.value);
      return (v) => new Map(Object.entries((v as Record<string, unknown> | undefined) ?? {}).map(([k, x]) => [key(k), val(x)]));
    }
    default:
      return (v) => v;
  }
}

function messageReader(message: protobuf.Type, columns: readonly Column[]): (m: Record<string, unknown>) => unknown[] {
  const parts = columns.map((c) => {
    const b = bind(message, c, c.name, false, false);
    if ('problem' in b) return () => null; // as SeaTunnel: a column the message lacks reads as null
    if (c.type.kind === 'row') {
      const inner = messageReader(b.nested!, c.type.fields);
      return (m: Record<string, unknown>) => inner((m[b.field.name] as Record<string, unknown> | undefined) ?? {});
    }
    const conv = fromProto(c.type);
    const fallback: unknown = b.field.map ? {} : b.field.repeated ? [] : b.field.typeDefault;
    return (m: Record<string, unknown>) => conv(m[b.field.name] ?? fallback);
  });
  return (m) => parts.map((p) => p(m));
}

/** The columns' decoder: one message of `message`'s type to the row's fields; throws on bytes that are not one. */
export function compileProtobufDecoder(message: protobuf.Type, columns: readonly Column[]): (value: Buffer) => unknown[] {
  const read = messageReader(message, columns);
  return (value) => read(message.decode(value));
}

/** The protobuf options both sides take, as their specs list them. */
export const PROTOBUF_OPTION_SPECS = [
  {
    name: 'protobuf_message_name',
    type: 'string' as const,
    description: 'format = protobuf: the message type each record is (a message declared in protobuf_schema).',
  },
  {
    name: 'protobuf_schema',
    type: 'string' as const,
    description:
      'format = protobuf: the .proto text (proto2 or proto3) declaring protobuf_message_name. Columns are its fields by name (lower-cased when written, as SeaTunnel does); a row column is the nested message type of its name.',
  },
];

/**
 * The protobuf schema of a side's options, checked against its columns at planning (each fault
 * one sentence at the option's line); undefined for the other formats, which refuse the options.
 */
export function protobufOptions(
  o: PluginOptions,
  format: string,
  columns: readonly Column[],
  side: 'source' | 'sink',
): ProtobufSchema | undefined {
  const names = PROTOBUF_OPTION_SPECS.map((x) => x.name);
  const bad = (option: string, message: string) => new ConfigError(ErrorCode.CONFIG_BAD_VALUE, message, { place: o.place(option) });
  if (format !== 'protobuf') {
    const given = names.find((n) => o.has(n));
    if (given) throw bad(given, `'${given}' is read only with format = protobuf (it is ${format}).`);
    return undefined;
  }
  const missing = names.find((n) => !o.has(n));
  if (missing) throw bad('format', `format protobuf needs '${missing}'.`);
  const s: ProtobufSchema = { messageName: o.get<string>('protobuf_message_name'), schema: o.get<string>('protobuf_schema') };
  const type = protobufType(s);
  if (typeof type === 'string') throw bad('protobuf_schema', `${type}.`);
  const problem = protobufColumnsProblem(type, columns, side === 'sink');
  if (problem) throw bad('protobuf_schema', `format protobuf: ${problem}.`);
  return s;
}

/** The message type of a checked schema (protobufOptions'). */
export function protobufMessage(s: ProtobufSchema): protobuf.Type {
  const t = protobufType(s);
  if (typeof t === 'string') throw new Error(t);
  return t;
}
