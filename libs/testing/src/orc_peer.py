"""pyarrow's side of Tideway's ORC interop tests (test/orc/orc-interop.test.ts, the LocalFile ORC tests).

  orc_peer.py read FILE...            prints, per file, one JSON line: {"schema": [...], "rows": [...], "stripes": n}
  orc_peer.py write SPEC OUT CODEC    writes SPEC's rows ({"columns": [[name, type]], "rows": [...], options}) with pyarrow
  orc_peer.py from-parquet IN OUT CODEC   writes a Parquet file's rows as ORC (the conformance fixtures)

Values travel in a canonical form both sides make: integers and decimals as strings, floats as
JSON numbers (or "NaN", "Infinity", "-Infinity"), bytes as hex, dates as YYYY-MM-DD, timestamps
as nanoseconds since 1970 (a string), lists as arrays, maps as arrays of [key, value], structs
as arrays of their fields. Types are SeaTunnel's spellings.
"""
import datetime
import decimal
import json
import math
import re
import sys

import pyarrow as pa
import pyarrow.orc as orc


def split_top(s):
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def arrow_type(t):
    t = t.strip()
    simple = {
        "string": pa.string(), "boolean": pa.bool_(), "tinyint": pa.int8(), "smallint": pa.int16(),
        "int": pa.int32(), "bigint": pa.int64(), "float": pa.float32(), "double": pa.float64(),
        "bytes": pa.binary(), "date": pa.date32(), "timestamp": pa.timestamp("ns"),
    }
    if t in simple:
        return simple[t]
    m = re.fullmatch(r"decimal\((\d+),\s*(\d+)\)", t)
    if m:
        return pa.decimal128(int(m.group(1)), int(m.group(2)))
    if t.startswith("array<"):
        return pa.list_(arrow_type(t[6:-1]))
    if t.startswith("map<"):
        k, v = split_top(t[4:-1])
        return pa.map_(arrow_type(k), arrow_type(v))
    if t.startswith("row<"):
        fields = []
        for part in split_top(t[4:-1]):
            name, ft = part.split(" ", 1)
            fields.append(pa.field(name, arrow_type(ft)))
        return pa.struct(fields)
    raise ValueError("unknown type " + t)


def type_name(t):
    if pa.types.is_boolean(t):
        return "boolean"
    for name, test in (("tinyint", pa.types.is_int8), ("smallint", pa.types.is_int16), ("int", pa.types.is_int32), ("bigint", pa.types.is_int64)):
        if test(t):
            return name
    if pa.types.is_float32(t):
        return "float"
    if pa.types.is_float64(t):
        return "double"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "string"
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return "bytes"
    if pa.types.is_date32(t):
        return "date"
    if pa.types.is_timestamp(t):
        return "timestamp_tz" if t.tz else "timestamp"
    if pa.types.is_decimal(t):
        return "decimal(%d, %d)" % (t.precision, t.scale)
    if pa.types.is_map(t):
        return "map<%s, %s>" % (type_name(t.key_type), type_name(t.item_type))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return "array<%s>" % type_name(t.value_type)
    if pa.types.is_struct(t):
        return "row<%s>" % ", ".join("%s %s" % (f.name, type_name(f.type)) for f in t)
    return str(t)


def canon_scalar(v, t):
    if v is None:
        return None
    if pa.types.is_boolean(t):
        return bool(v)
    if pa.types.is_integer(t):
        return str(v)
    if pa.types.is_floating(t):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if pa.types.is_decimal(t):
        return format(v, "f")
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return v.hex()
    if pa.types.is_date32(t):
        return v.isoformat()
    return v


def canon(arr):
    """Canonical values of an arrow array (a chunk)."""
    t = arr.type
    n = len(arr)
    valid = arr.is_valid().to_pylist()
    if pa.types.is_timestamp(t):
        return [None if x is None else str(x) for x in arr.cast(pa.timestamp("ns", tz=t.tz)).view(pa.int64()).to_pylist()]
    if pa.types.is_struct(t):
        children = [canon(arr.field(i)) for i in range(t.num_fields)]
        return [[c[j] for c in children] if valid[j] else None for j in range(n)]
    if pa.types.is_map(t):
        offsets = arr.offsets.to_pylist()
        keys = canon(arr.keys)
        items = canon(arr.items)
        return [[[keys[k], items[k]] for k in range(offsets[j], offsets[j + 1])] if valid[j] else None for j in range(n)]
    if pa.types.is_list(t):
        offsets = arr.offsets.to_pylist()
        values = canon(arr.values)
        return [values[offsets[j]:offsets[j + 1]] if valid[j] else None for j in range(n)]
    return [canon_scalar(v, t) for v in arr.to_pylist()]


def build(values, t):
    """An arrow array of canonical values."""
    mask = pa.array([v is None for v in values], pa.bool_())
    if pa.types.is_timestamp(t):
        return pa.array([None if v is None else int(v) for v in values], pa.int64()).view(t)
    if pa.types.is_struct(t):
        children = [build([None if v is None else v[i] for v in values], t.field(i).type) for i in range(t.num_fields)]
        return pa.StructArray.from_arrays(children, fields=list(t), mask=mask)
    if pa.types.is_map(t) or pa.types.is_list(t):
        offsets, flat = [0], []
        for v in values:
            flat.extend(v or [])
            offsets.append(len(flat))
        off = pa.array(offsets, pa.int32())
        if pa.types.is_map(t):
            keys = build([kv[0] for kv in flat], t.key_type)
            items = build([kv[1] for kv in flat], t.item_type)
            return pa.MapArray.from_arrays(off, keys, items, type=t, mask=mask)
        return pa.ListArray.from_arrays(off, build(flat, t.value_type), type=t, mask=mask)
    out = []
    for v in values:
        if v is None:
            out.append(None)
        elif pa.types.is_integer(t):
            out.append(int(v))
        elif pa.types.is_floating(t):
            out.append(float(v))
        elif pa.types.is_decimal(t):
            out.append(decimal.Decimal(v))
        elif pa.types.is_binary(t):
            out.append(bytes.fromhex(v))
        elif pa.types.is_date32(t):
            out.append(datetime.date.fromisoformat(v))
        else:
            out.append(v)
    return pa.array(out, t)


def main():
    cmd = sys.argv[1]
    if cmd == "read":
        for path in sys.argv[2:]:
            f = orc.ORCFile(path)
            table = f.read()
            cols = [[] for _ in table.columns]
            for i, col in enumerate(table.columns):
                for chunk in col.chunks:
                    cols[i].extend(canon(chunk))
            rows = [list(r) for r in zip(*cols)] if cols else []
            schema = [[fld.name, type_name(fld.type)] for fld in table.schema]
            print(json.dumps({"schema": schema, "rows": rows, "stripes": f.nstripes, "compression": f.compression}))
    elif cmd == "write":
        spec = json.load(open(sys.argv[2]))
        out, codec = sys.argv[3], sys.argv[4]
        names = [c[0] for c in spec["columns"]]
        types = [arrow_type(c[1]) for c in spec["columns"]]
        arrays = [build([r[i] for r in spec["rows"]], types[i]) for i in range(len(names))]
        table = pa.Table.from_arrays(arrays, names=names)
        opts = spec.get("options", {})
        orc.write_table(table, out, compression=codec, **opts)
    elif cmd == "from-parquet":
        import pyarrow.parquet as pq

        orc.write_table(pq.read_table(sys.argv[2]), sys.argv[3], compression=sys.argv[4])
    else:
        raise SystemExit("usage: orc_peer.py read FILE... | write SPEC OUT CODEC | from-parquet IN OUT CODEC")


if __name__ == "__main__":
    main()
