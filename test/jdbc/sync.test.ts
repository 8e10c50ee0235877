/**
 * Jdbc through the real engine (`tideway run`), against private PostgreSQL and MariaDB servers:
 * - every mapped column type, PG->PG (COPY and upsert sinks), MariaDB->MariaDB, and across
 *   (MariaDB->PG, PG->MariaDB, target tables created by the sink): the target equals the source;
 * - parallel partitioned reads (partition_column, partition_num) give every row exactly once,
 *   rows with a NULL partition key included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { runCli } from '../conformance/cli-process.js';
import { JobFolder, dbExec, jdbcConnection, myExec, pgExec, type DbKind } from './databases.js';
import { MARIA_ALL_TYPES_DDL, PG_ALL_TYPES_DDL, commonTypesDdl, commonTypesSelect, comparableCommonRows } from './type-tables.js';

let pgs: TestDatabaseServer;
let maria: TestDatabaseServer;
const jobs = new JobFolder();

beforeAll(async () => {
  [pgs, maria] = await Promise.all([startPostgres(), startMariaDb()]);
  await pgExec(
    pgs,
    `${PG_ALL_TYPES_DDL}
     CREATE TABLE all_types_copy (LIKE all_types INCLUDING ALL);
     CREATE TABLE all_types_upsert (LIKE all_types INCLUDING ALL);
     ${commonTypesDdl('pg')}
     CREATE TABLE many (id bigint PRIMARY KEY, v integer, label text);
     INSERT INTO many SELECT g, g % 97, 'row ' || g FROM generate_series(1, 20000) g;
     CREATE TABLE many_copy (LIKE many INCLUDING ALL);`,
  );
  await myExec(
    maria,
    `${MARIA_ALL_TYPES_DDL}
     CREATE TABLE all_types_copy LIKE all_types;
     ${commonTypesDdl('maria')}
     CREATE TABLE many (id BIGINT PRIMARY KEY, v INT NULL, label VARCHAR(32));
     CREATE TABLE many_copy LIKE many;`,
  );
  // 9,000 rows whose partition column has negatives, gaps and NULLs.
  const values: string[] = [];
  for (let i = 1; i <= 9000; i++) values.push(`(${i}, ${i % 10 === 0 ? 'NULL' : ((i * 37) % 5003) - 2500}, 'row ${i}')`);
  await myExec(maria, `INSERT INTO many VALUES ${values.join(', ')}`);
}, 120_000);

afterAll(async () => {
  jobs.cleanup();
  await Promise.all([pgs?.stop(), maria?.stop()]);
});

async function run(conf: string): Promise<void> {
  const res = await runCli(['run', '-c', jobs.write(conf)]);
  expect(res.code, res.stderr).toBe(0);
}

const pgRowsAsText = (table: string) => pgExec(pgs, `SELECT t::text AS row FROM ${table} t ORDER BY id`);

describe('every column type through tideway run', () => {
  it('PostgreSQL -> PostgreSQL, COPY sink and upsert sink: targets equal the source', async () => {
    await run(`
env { job.mode = "BATCH", parallelism = 1 }
source {
  Jdbc {
    ${jdbcConnection('pg', pgs)}
    table_path = "${pgs.database}.public.all_types"
    plugin_output = "src"
  }
}
sink {
  Jdbc {
    ${jdbcConnection('pg', pgs)}
    plugin_input = "src"
    generate_sink_sql = true
    database = "${pgs.database}"
    table = "public.all_types_copy"
    use_copy_statement = true
  }
  Jdbc {
    ${jdbcConnection('pg', pgs)}
    plugin_input = "src"
    generate_sink_sql = true
    database = "${pgs.database}"
    table = "public.all_types_upsert"
    primary_keys = ["id"]
  }
}`);
    const source = await pgRowsAsText('all_types');
    expect(source).toHaveLength(3);
    expect(await pgRowsAsText('all_types_copy')).toEqual(source);
    expect(await pgRowsAsText('all_types_upsert')).toEqual(source);
  });

  it('MariaDB -> MariaDB: the target equals the source', async () => {
    await run(`
env { job.mode = "BATCH", parallelism = 1 }
source {
  Jdbc {
    ${jdbcConnection('maria', maria)}
    table_path = "${maria.database}.all_types"
  }
}
sink {
  Jdbc {
    ${jdbcConnection('maria', maria)}
    generate_sink_sql = true
    database = "${maria.database}"
    table = "all_types_copy"
    primary_keys = ["id"]
  }
}`);
    const source = await myExec(maria, 'SELECT * FROM all_types ORDER BY id');
    expect(source).toHaveLength(3);
    expect(await myExec(maria, 'SELECT * FROM all_types_copy ORDER BY id')).toEqual(source);
  });

  // One reads a query, the other a table_path; each sink creates its table from the mapped types.
  it.each<{ from: DbKind; to: DbKind; read: string; target: string }>([
    { from: 'maria', to: 'pg', read: 'query = "select * from common_types"', target: 'from_maria' },
    { from: 'pg', to: 'maria', read: '', target: 'from_pg' },
  ])('$from -> $to into a table the sink creates: values equal', async ({ from, to, read, target }) => {
    const server = (k: DbKind) => (k === 'pg' ? pgs : maria);
    await run(`
env { job.mode = "BATCH", parallelism = 1 }
source {
  Jdbc {
    ${jdbcConnection(from, server(from))}
    ${read || `table_path = "${pgs.database}.public.common_types"`}
  }
}
sink {
  Jdbc {
    ${jdbcConnection(to, server(to))}
    generate_sink_sql = true
    database = "${server(to).database}"
    table = "${to === 'pg' ? `public.${target}` : target}"
    primary_keys = ["id"]
  }
}`);
    const source = comparableCommonRows(await dbExec(from, server(from), commonTypesSelect(from, 'common_types')));
    expect(source).toHaveLength(3);
    expect(comparableCommonRows(await dbExec(to, server(to), commonTypesSelect(to, target)))).toEqual(source);
  });
});

describe('parallel partitioned reads', () => {
  it('PostgreSQL table, partition_column = id, partition_num = 7, parallelism 2: every row once', async () => {
    await run(`
env { job.mode = "BATCH", parallelism = 2 }
source {
  Jdbc {
    ${jdbcConnection('pg', pgs)}
    table_path = "${pgs.database}.public.many"
    partition_column = "id"
    partition_num = 7
    fetch_size = 500
  }
}
sink {
  Jdbc {
    ${jdbcConnection('pg', pgs)}
    generate_sink_sql = true
    database = "${pgs.database}"
    table = "public.many_copy"
    use_copy_statement = true
  }
}`);
    // many_copy has the primary key: a row read twice would have failed the COPY; count the rest.
    const [r] = await pgExec(
      pgs,
      `SELECT (SELECT count(*) FROM many_copy)::int AS copied,
              (SELECT count(*) FROM many m JOIN many_copy c USING (id) WHERE (m.v, m.label) IS NOT DISTINCT FROM (c.v, c.label))::int AS equal`,
    );
    expect(r).toEqual({ copied: 20000, equal: 20000 });
  });

  it('MariaDB query, partition_column over negatives, gaps and NULLs, partition_num = 5: every row once', async () => {
    await run(`
env { job.mode = "BATCH", parallelism = 2 }
source {
  Jdbc {
    ${jdbcConnection('maria', maria)}
    query = "select id, v, label from many"
    partition_column = "v"
    partition_num = 5
  }
}
sink {
  Jdbc {
    ${jdbcConnection('maria', maria)}
    query = "insert into many_copy (id, v, label) values (?, ?, ?)"
  }
}`);
    const [r] = await myExec(
      maria,
      `SELECT (SELECT COUNT(*) FROM many_copy) AS copied, (SELECT COUNT(DISTINCT id) FROM many_copy) AS distinct_ids,
              (SELECT COUNT(*) FROM many m JOIN many_copy c ON c.id = m.id AND c.v <=> m.v AND c.label = m.label) AS equal`,
    );
    expect(r).toEqual({ copied: '9000', distinct_ids: '9000', equal: '9000' });
  });
});
