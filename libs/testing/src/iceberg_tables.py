"""PyIceberg writing the tables Tideway's Iceberg source tests read (test/systems/iceberg-source.test.ts).

  iceberg_tables.py make        builds a table in a hadoop-catalog folder from a JSON recipe on stdin
  iceberg_tables.py scan FILE [SNAPSHOT_ID|-] [FILTER]   PyIceberg's scan of the table of a metadata file, canonical rows

The recipe: {"warehouse": folder, "namespace": "db", "table": "t", "schema": [[name, type, required], ...],
"existing": true (the steps go on with the table there, schema and partition ignored),
"sql": {"uri": SQLAlchemy URI, "catalog": name} (the table is made in that SqlCatalog instead, not published),
"partition": [[transform, column], ...], "properties": {...}, "steps": [step, ...]} where a step is
{"append": [row, ...]} (rows as lists in the current schema's order, canonical JSON values),
{"delete": "filter"} (PyIceberg's row filter text), {"evolve": [[op, ...], ...]} (add NAME TYPE,
rename OLD NEW, drop NAME, widen NAME TYPE), {"spec": [[transform, column], ...]} (partition fields
added) or {"properties": {...}} or {"position_delete": [[file_index, pos], ...]} (a position delete
file committed by hand with PyIceberg's manifest writers: PyIceberg's own deletes rewrite files).

PyIceberg has no hadoop catalog: the table is made in a SqlCatalog on SQLite whose table location
is <warehouse>/<namespace>/<table>, and each metadata file it writes is published there as
metadata/vN.metadata.json with version-hint.text, the hadoop layout. Prints {"snapshots": [id after
each step], "metadata": the last vN file, "files": [data file paths of the current snapshot]}.
"""
import datetime
import decimal
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from iceberg_peer import canon  # noqa: E402


def parse_type(text):
    from pyiceberg import types as T

    text = text.strip()
    simple = {
        "boolean": T.BooleanType(), "int": T.IntegerType(), "long": T.LongType(), "float": T.FloatType(),
        "double": T.DoubleType(), "date": T.DateType(), "time": T.TimeType(), "timestamp": T.TimestampType(),
        "timestamptz": T.TimestamptzType(), "string": T.StringType(), "binary": T.BinaryType(), "uuid": T.UUIDType(),
    }
    if text in simple:
        return simple[text]
    if text.startswith("decimal("):
        p, s = text[8:-1].split(",")
        return T.DecimalType(int(p), int(s))
    if text.startswith("fixed["):
        return T.FixedType(int(text[6:-1]))
    if text.startswith("list<"):
        return T.ListType(element_id=-1, element_type=parse_type(text[5:-1]), element_required=False)
    if text.startswith("map<"):
        k, v = split_top(text[4:-1])
        return T.MapType(key_id=-1, key_type=parse_type(k), value_id=-1, value_type=parse_type(v), value_required=False)
    if text.startswith("struct<"):
        fields = []
        for part in split_top(text[7:-1]):
            name, t = part.split(":", 1)
            fields.append(T.NestedField(field_id=-1, name=name.strip(), field_type=parse_type(t), required=False))
        return T.StructType(*fields)
    raise ValueError("unknown type " + text)


def split_top(text):
    parts, depth, cur = [], 0, ""
    for c in text:
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return parts


def schema_of(fields):
    from pyiceberg.schema import Schema, assign_fresh_schema_ids
    from pyiceberg.types import NestedField

    return assign_fresh_schema_ids(
        Schema(*[NestedField(field_id=i + 1, name=n, field_type=parse_type(t), required=r) for i, (n, t, r) in enumerate(fields)])
    )


def value(t, v):
    """A canonical JSON value as pyarrow takes it for Iceberg type t."""
    from pyiceberg import types as T

    if v is None:
        return None
    if isinstance(t, T.DecimalType):
        return decimal.Decimal(v)
    if isinstance(t, T.DateType):
        return datetime.date.fromisoformat(v)
    if isinstance(t, T.TimeType):
        return datetime.time.fromisoformat(v)
    if isinstance(t, T.TimestampType):
        return datetime.datetime.fromisoformat(v)
    if isinstance(t, T.TimestamptzType):
        return datetime.datetime.fromisoformat(v).astimezone(datetime.timezone.utc)
    if isinstance(t, (T.BinaryType, T.FixedType)):
        return bytes.fromhex(v)
    if isinstance(t, T.LongType) or isinstance(t, T.IntegerType):
        return int(v)
    if isinstance(t, T.ListType):
        return [value(t.element_type, e) for e in v]
    if isinstance(t, T.MapType):
        return [(value(t.key_type, k), value(t.value_type, x)) for k, x in v]
    if isinstance(t, T.StructType):
        return {f.name: value(f.field_type, e) for f, e in zip(t.fields, v)}
    return v


def arrow_of(schema, rows):
    import pyarrow as pa

    arrow_schema = schema.as_arrow()
    dicts = [{f.name: value(f.field_type, v) for f, v in zip(schema.fields, r)} for r in rows]
    return pa.Table.from_pylist(dicts, schema=arrow_schema)


def partition_spec(schema, fields):
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.transforms import parse_transform

    return PartitionSpec(
        *[
            PartitionField(source_id=schema.find_field(col).field_id, field_id=1000 + i, transform=parse_transform(tr), name=f"{col}_{tr.split('[')[0]}")
            for i, (tr, col) in enumerate(fields)
        ]
    )


def commit_position_deletes(table, deletes):
    """A position delete file of (data file, position) pairs, committed as a snapshot whose manifest
    list is the current one's plus a delete manifest, with PyIceberg's writers and commit call."""
    import uuid

    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyiceberg.manifest import (
        DataFile, DataFileContent, FileFormat, ManifestContent, ManifestEntry, ManifestEntryStatus,
        ManifestWriterV2, write_manifest_list,
    )
    from pyiceberg.table.refs import SnapshotRefType
    from pyiceberg.table.snapshots import Operation, Snapshot, Summary
    from pyiceberg.table.update import AddSnapshotUpdate, AssertRefSnapshotId, SetSnapshotRefUpdate

    class DeleteManifestWriter(ManifestWriterV2):
        def content(self):
            return ManifestContent.DELETES

        @property
        def _meta(self):
            return {**super()._meta, "content": "deletes"}

    parent = table.current_snapshot()
    tasks = sorted(table.scan().plan_files(), key=lambda t: t.file.file_path)
    files = [t.file.file_path for t in tasks]
    pairs = sorted((files[i], int(p)) for i, p in deletes)
    if len({i for i, _ in deletes}) != 1:
        raise ValueError("position deletes of one data file per step (a delete file is in its data file's partition)")
    partition = tasks[deletes[0][0]].file.partition
    path_type = pa.field("file_path", pa.string(), nullable=False, metadata={b"PARQUET:field_id": b"2147483546"})
    pos_type = pa.field("pos", pa.int64(), nullable=False, metadata={b"PARQUET:field_id": b"2147483545"})
    arrow = pa.Table.from_arrays([pa.array([f for f, _ in pairs]), pa.array([p for _, p in pairs], pa.int64())], schema=pa.schema([path_type, pos_type]))
    location = table.location().removeprefix("file://")
    path = f"{location}/data/{uuid.uuid4()}-deletes.parquet"
    pq.write_table(arrow, path)
    snapshot_id = table.metadata.new_snapshot_id()
    seq = table.metadata.next_sequence_number()
    delete_file = DataFile.from_args(
        content=DataFileContent.POSITION_DELETES, file_path=path, file_format=FileFormat.PARQUET, partition=partition,
        record_count=len(pairs), file_size_in_bytes=os.path.getsize(path),
    )
    delete_file.spec_id = table.spec().spec_id
    manifest_path = f"{location}/metadata/{uuid.uuid4()}-m0.avro"
    with DeleteManifestWriter(table.spec(), table.schema(), table.io.new_output(manifest_path), snapshot_id, "deflate") as w:
        w.add(ManifestEntry.from_args(status=ManifestEntryStatus.ADDED, snapshot_id=snapshot_id, data_file=delete_file))
    manifest = w.to_manifest_file()
    list_path = f"{location}/metadata/snap-{snapshot_id}-{uuid.uuid4()}.avro"
    with write_manifest_list(2, table.io.new_output(list_path), snapshot_id, parent.snapshot_id, seq, "deflate") as lw:
        lw.add_manifests([manifest, *parent.manifests(table.io)])
    snapshot = Snapshot(
        snapshot_id=snapshot_id, parent_snapshot_id=parent.snapshot_id, sequence_number=seq, manifest_list=list_path,
        summary=Summary(Operation.DELETE), schema_id=table.schema().schema_id, timestamp_ms=int(datetime.datetime.now().timestamp() * 1000),
    )
    with table.transaction() as tx:
        tx._apply(
            (AddSnapshotUpdate(snapshot=snapshot), SetSnapshotRefUpdate(snapshot_id=snapshot_id, parent_snapshot_id=parent.snapshot_id, ref_name="main", type=SnapshotRefType.BRANCH)),
            (AssertRefSnapshotId(snapshot_id=parent.snapshot_id, ref="main"),),
        )


def make(recipe):
    from pyiceberg.catalog.sql import SqlCatalog

    warehouse = recipe["warehouse"]
    ns, name = recipe["namespace"], recipe["table"]
    location = os.path.join(warehouse, *ns.split("."), name)
    meta_dir = os.path.join(location, "metadata")
    existing = recipe.get("existing", False)
    published = 0
    if not existing:
        shutil.rmtree(location, ignore_errors=True)
        os.makedirs(location, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="pyiceberg-catalog-")
    try:
        sql = recipe.get("sql")
        if sql:  # a SqlCatalog of the test's own (PostgreSQL): the table stays there, nothing is published
            catalog = SqlCatalog(sql["catalog"], uri=sql["uri"], warehouse=f"file://{warehouse}")
        else:
            catalog = SqlCatalog("make", uri=f"sqlite:///{tmp}/catalog.db", warehouse=f"file://{warehouse}")
        catalog.create_namespace_if_not_exists(ns)
        if existing:
            # a table of the hadoop layout goes on: registered by its latest version, new versions after it
            with open(os.path.join(meta_dir, "version-hint.text")) as h:
                published = int(h.read().strip())
            table = catalog.register_table(f"{ns}.{name}", f"file://{meta_dir}/v{published}.metadata.json")
        else:
            schema = schema_of(recipe["schema"])
            table = catalog.create_table(
                f"{ns}.{name}", schema=schema, location=f"file://{location}",
                partition_spec=partition_spec(schema, recipe.get("partition", [])), properties=recipe.get("properties", {}),
            )
        metadata_files = [table.metadata_location]
        snapshots = []
        for step in recipe.get("steps", []):
            if "append" in step:
                table.append(arrow_of(table.schema(), step["append"]))
            elif "delete" in step:
                table.delete(delete_filter=step["delete"])
            elif "position_delete" in step:
                commit_position_deletes(table, step["position_delete"])
            elif "evolve" in step:
                with table.update_schema() as u:
                    for op in step["evolve"]:
                        if op[0] == "add":
                            u.add_column(op[1], parse_type(op[2]))
                        elif op[0] == "rename":
                            u.rename_column(op[1], op[2])
                        elif op[0] == "drop":
                            u.delete_column(op[1])
                        elif op[0] == "widen":
                            u.update_column(op[1], field_type=parse_type(op[2]))
            elif "spec" in step:
                with table.update_spec() as u:
                    for tr, col in step["spec"]:
                        from pyiceberg.transforms import parse_transform

                        u.add_field(col, parse_transform(tr), f"{col}_{tr.split('[')[0]}")
            elif "properties" in step:
                with table.transaction() as tx:
                    tx.set_properties(**step["properties"])
            table = catalog.load_table(f"{ns}.{name}")
            if table.metadata_location != metadata_files[-1]:
                metadata_files.append(table.metadata_location)
            snap = table.current_snapshot()
            snapshots.append(str(snap.snapshot_id) if snap else None)
        if sql:
            print(json.dumps({"snapshots": snapshots, "metadata": table.metadata_location, "files": []}))
            return
        if existing:
            metadata_files = metadata_files[1:]  # the registered version is published already
        for i, f in enumerate(metadata_files):
            shutil.copyfile(f.removeprefix("file://"), os.path.join(meta_dir, f"v{published + i + 1}.metadata.json"))
        last = published + len(metadata_files)
        with open(os.path.join(meta_dir, "version-hint.text"), "w") as h:
            h.write(str(last))
        files = sorted(t.file.file_path for t in table.scan().plan_files()) if table.current_snapshot() else []
        print(json.dumps({"snapshots": snapshots, "metadata": os.path.join(meta_dir, f"v{last}.metadata.json"), "files": files}))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def scan(metadata, snapshot_id, row_filter):
    from pyiceberg.table import StaticTable

    table = StaticTable.from_metadata(metadata)
    kwargs = {}
    if snapshot_id and snapshot_id != "-":
        kwargs["snapshot_id"] = int(snapshot_id)
    if row_filter:
        kwargs["row_filter"] = row_filter
    schema = table.schema()
    records = table.scan(**kwargs).to_arrow().to_pylist()
    rows = [[canon(r.get(f.name)) for f in schema.fields] for r in records]
    rows.sort(key=lambda r: json.dumps(r))
    print(json.dumps({"columns": [f.name for f in schema.fields], "rows": rows}))


def main():
    cmd = sys.argv[1]
    if cmd == "make":
        make(json.load(sys.stdin))
    elif cmd == "scan":
        scan(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None, sys.argv[4] if len(sys.argv) > 4 else None)
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
