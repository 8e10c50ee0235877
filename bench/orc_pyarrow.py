"""pyarrow's side of bench/orc.ts (Apache ORC's C++ library), one timed run a call, so the bench
can alternate it with Tideway's runs and print JSON:

  check TIDEWAY_FILE OUT  reads Tideway's file, writes it as ORC (snappy) to OUT, reads OUT back and
                          says whether it holds the same table (rows, schema);
  write TIDEWAY_FILE OUT  reads Tideway's file into memory before the clock, then times writing that
                          table as ORC (snappy) to OUT;
  read FILE               times reading FILE whole into a table."""
import json
import sys
import time

import pyarrow.orc as orc

mode = sys.argv[1]
if mode == "check":
    table = orc.ORCFile(sys.argv[2]).read()
    orc.write_table(table, sys.argv[3], compression="snappy")
    back = orc.ORCFile(sys.argv[3]).read()
    print(json.dumps({"rows": table.num_rows, "same": back.equals(table), "schema": str(table.schema).replace("\n", "; ")}))
elif mode == "write":
    table = orc.ORCFile(sys.argv[2]).read()
    t0 = time.perf_counter()
    orc.write_table(table, sys.argv[3], compression="snappy")
    print(json.dumps({"secs": time.perf_counter() - t0, "rows": table.num_rows}))
elif mode == "read":
    t0 = time.perf_counter()
    table = orc.ORCFile(sys.argv[2]).read()
    print(json.dumps({"secs": time.perf_counter() - t0, "rows": table.num_rows}))
else:
    raise SystemExit(f"unknown mode {mode}")
