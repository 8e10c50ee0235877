"""PyIceberg's side of Tideway's Iceberg tests (test/systems/iceberg.test.ts).

  iceberg_peer.py read-metadata FILE             reads the table of a metadata file (StaticTable)
  iceberg_peer.py read-sql URI CATALOG TABLE [PROPS]  reads a table of a SqlCatalog (namespace.table; PROPS: JSON of more catalog properties)
  iceberg_peer.py read-rest URI TABLE [PROPS]    reads a table of a REST catalog (PROPS: JSON of more catalog properties)
  iceberg_peer.py append-sql URI CATALOG TABLE WAREHOUSE   creates (or replaces) a table and appends rows of stdin's JSON

`read-*` print one JSON object: {"schema": [[name, type, required]], "identifier": [names],
"rows": [...], "snapshots": [summary...], "files": n, "delete_files": n}. Values are canonical: integers and decimals
as strings, floats as JSON numbers, bytes as hex, dates and timestamps as ISO text, lists as arrays,
maps as arrays of [key, value]; rows sorted by their JSON text.
"""
import datetime
import decimal
import json
import sys


def canon(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return v
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).hex()
    if isinstance(v, (datetime.date, datetime.datetime, datetime.time)):
        return v.isoformat()
    if isinstance(v, dict):
        return [[canon(k), canon(x)] for k, x in v.items()]
    if isinstance(v, list):
        if v and all(isinstance(e, tuple) and len(e) == 2 for e in v):
            return [[canon(k), canon(x)] for k, x in v]
        return [canon(e) for e in v]
    return str(v)


def read_by_ids(io, path, schema):
    """A Parquet file's rows as dicts keyed by the table's column names, matched by field id
    (read through the table's FileIO: a local folder or S3). A file written before a schema
    change keeps the columns the schema still has (by id, under their current names); columns
    added since are missing from its rows (read as nulls)."""
    import pyarrow.parquet as pq

    with io.new_input(path).open() as f:
        t = pq.read_table(f)
    ids = {f.field_id for f in schema.fields}
    keep, names = [], []
    for f in t.schema:
        fid = int(f.metadata[b"PARQUET:field_id"])
        if fid in ids:
            keep.append(f.name)
            names.append(schema.find_field(fid).name)
    return t.select(keep).rename_columns(names).to_pylist()


def scan_applying_equality_deletes(table):
    """PyIceberg refuses to scan a table with equality deletes (apache/iceberg#6568): the files are
    planned with PyIceberg's manifest reader and the deletes applied here by the table spec's rule
    (an equality delete removes the rows of equal key of the data files of its partition whose
    data sequence number is lower than its own)."""
    from pyiceberg.manifest import DataFileContent

    schema = table.schema()
    snapshot = table.current_snapshot()
    data, deletes = [], []
    for m in snapshot.manifests(table.io) if snapshot else []:
        for e in m.fetch_manifest_entry(table.io, discard_deleted=True):
            (data if e.data_file.content == DataFileContent.DATA else deletes).append(e)
    if any(d.data_file.content == DataFileContent.POSITION_DELETES for d in deletes):
        sys.exit("position deletes are not applied by this reader")
    delete_keys = []
    for d in deletes:
        names = [schema.find_field(i).name for i in d.data_file.equality_ids]
        keys = {tuple(r[n] for n in names) for r in read_by_ids(table.io, d.data_file.file_path, schema)}
        delete_keys.append((d, names, keys))
    rows = []
    for e in data:
        recs = read_by_ids(table.io, e.data_file.file_path, schema)
        for d, names, keys in delete_keys:
            if d.sequence_number <= e.sequence_number or repr(d.data_file.partition) != repr(e.data_file.partition):
                continue
            recs = [r for r in recs if tuple(r[n] for n in names) not in keys]
        rows += [{f.name: r.get(f.name) for f in schema.fields} for r in recs]
    return rows, len(data), len(deletes)


def dump(table):
    schema = table.schema()
    try:
        records = table.scan().to_arrow().to_pylist()
        files = list(table.scan().plan_files())
        data_files, delete_files = len(files), sum(len(t.delete_files) for t in files)
    except ValueError as err:
        if "equality deletes" not in str(err):
            raise
        records, data_files, delete_files = scan_applying_equality_deletes(table)
    rows = [[canon(r[f.name]) for f in schema.fields] for r in records]
    rows.sort(key=lambda r: json.dumps(r))
    out = {
        "schema": [[f.name, str(f.field_type), f.required] for f in schema.fields],
        "identifier": [schema.find_field(i).name for i in schema.identifier_field_ids],
        "rows": rows,
        "snapshots": [dict(s.summary.additional_properties, operation=s.summary.operation.value) for s in table.snapshots()],
        "files": data_files,
        "delete_files": delete_files,
    }
    print(json.dumps(out))


def sql_catalog(uri, name, warehouse=None, more=None):
    from pyiceberg.catalog.sql import SqlCatalog

    props = {"uri": uri, **(more or {})}
    if warehouse:
        props["warehouse"] = warehouse
    return SqlCatalog(name, **props)


def main():
    cmd = sys.argv[1]
    if cmd == "read-metadata":
        from pyiceberg.table import StaticTable

        dump(StaticTable.from_metadata(sys.argv[2]))
    elif cmd == "read-sql":
        more = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}
        dump(sql_catalog(sys.argv[2], sys.argv[3], more=more).load_table(sys.argv[4]))
    elif cmd == "read-rest":
        from pyiceberg.catalog.rest import RestCatalog

        props = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
        dump(RestCatalog("rest", uri=sys.argv[2], **props).load_table(sys.argv[3]))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
