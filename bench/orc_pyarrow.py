"""pyarrow's side of bench/orc.ts: reads Tideway's ORC file of the orders rows into memory (before
any clock), then times pyarrow writing that table as ORC (snappy) and reading its own file and
Tideway's, each three times (the median and the spread printed), and prints JSON."""
import json
import sys
import time

import pyarrow.orc as orc

tideway_file, out = sys.argv[1], sys.argv[2]
table = orc.ORCFile(tideway_file).read()


def median(f):
    runs = []
    for _ in range(3):
        t0 = time.perf_counter()
        f()
        runs.append(time.perf_counter() - t0)
    first = runs[0]
    runs.sort()
    return {"secs": runs[1], "min": runs[0], "max": runs[2], "first": first}


write = median(lambda: orc.write_table(table, out, compression="snappy"))
read = median(lambda: orc.ORCFile(out).read())
read_tideway = median(lambda: orc.ORCFile(tideway_file).read())
back = orc.ORCFile(out).read()
print(json.dumps({
    "rows": table.num_rows,
    "write": write,
    "read": read,
    "readTideway": read_tideway,
    "same": back.equals(table),
    "schema": str(table.schema).replace("\n", "; "),
}))
