import { randomInt } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { ConfigError, ErrorCode } from '@tideway/common';
import type { ChaosRunReport } from '../chaos/chaos-run.js';
import type { ChaosSinkKind, ChaosSourceKind, JdbcLogin } from '../chaos/sinks.js';
import { engineConfig } from './options.js';

interface ChaosFlags {
  coordinators: string;
  workers: string;
  kills: string;
  sink: string;
  source: string;
  jdbcUrl?: string;
  jdbcUser?: string;
  jdbcPassword?: string;
  kafkaBootstrap?: string;
  icebergWarehouse?: string;
  seed?: string;
  keys: string;
  rowsPerKey?: string;
  rate: string;
  json?: boolean;
}

/** The repository root (the cluster processes run from there, as ./tideway does). */
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

function wholeNumber(option: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${text} is not a whole number ${range}`, { place: { option } });
  }
  return n;
}

const SINKS: Record<string, ChaosSinkKind[]> = {
  localfile: ['localfile'],
  jdbc: ['jdbc'],
  both: ['localfile', 'jdbc'],
  kafka: ['kafka'],
  iceberg: ['iceberg'],
};

/** `--iceberg-warehouse` goes with `--sink iceberg`: a local folder (absolute from here on; the cluster runs elsewhere). */
function icebergWarehouse(o: ChaosFlags, sinks: ChaosSinkKind[]): string | undefined {
  if (o.icebergWarehouse === undefined) return undefined;
  const place = { place: { option: '--iceberg-warehouse' } };
  if (!sinks.includes('iceberg'))
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `--iceberg-warehouse is only read with --sink iceberg (this run's sink: ${o.sink})`,
      place,
    );
  if (/^[a-z][a-z0-9+.-]*:/i.test(o.icebergWarehouse))
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${o.icebergWarehouse} is not a local folder: the chaos run's table is in a hadoop catalog, which needs a local file system (give a path, not a URI)`,
      place,
    );
  if (/["\\\n]/.test(o.icebergWarehouse))
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${JSON.stringify(o.icebergWarehouse)}: quotes, backslashes and line breaks are not supported in the folder`,
      place,
    );
  return resolve(o.icebergWarehouse);
}

/** `--source`: the Sequence source, or a Kafka topic filled with its rows first. */
function sourceKind(o: ChaosFlags): ChaosSourceKind {
  if (o.source === 'sequence' || o.source === 'kafka') return o.source;
  throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${o.source} is not a source the chaos run knows: use sequence or kafka`, {
    place: { option: '--source' },
  });
}

/** `--kafka-bootstrap` goes with `--sink kafka` or `--source kafka`, and they need it: the command starts no broker. */
function kafkaBootstrap(o: ChaosFlags, sinks: ChaosSinkKind[], source: ChaosSourceKind): string | undefined {
  const flag = sinks.includes('kafka') ? '--sink kafka' : source === 'kafka' ? '--source kafka' : undefined;
  if (flag === undefined) {
    if (o.kafkaBootstrap !== undefined)
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `--kafka-bootstrap is only read with --sink kafka or --source kafka (this run's sink: ${o.sink}, source: ${o.source})`,
        {
          place: { option: '--kafka-bootstrap' },
        },
      );
    return undefined;
  }
  if (o.kafkaBootstrap === undefined)
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${flag} needs --kafka-bootstrap host:port, a Kafka broker of yours (transactions enabled); the chaos command starts no broker`,
      { place: { option: '--kafka-bootstrap' } },
    );
  if (!/^[^\s:,]+:\d{1,5}$/.test(o.kafkaBootstrap))
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${o.kafkaBootstrap} is not host:port`, { place: { option: '--kafka-bootstrap' } });
  return o.kafkaBootstrap;
}

function jdbcLogin(o: ChaosFlags, sinks: ChaosSinkKind[], pgTargetOf: (login: JdbcLogin) => unknown): JdbcLogin | undefined {
  const given = o.jdbcUrl ?? o.jdbcUser ?? o.jdbcPassword;
  if (given !== undefined && !sinks.includes('jdbc')) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `--jdbc-url, --jdbc-user and --jdbc-password are only read with --sink jdbc or both (this run's sink: ${o.sink})`,
      { place: { option: '--jdbc-url' } },
    );
  }
  if (o.jdbcUrl === undefined) {
    if (given !== undefined)
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        '--jdbc-user and --jdbc-password need --jdbc-url (without it a private PostgreSQL is started)',
        { place: { option: '--jdbc-url' } },
      );
    return undefined;
  }
  const login = { url: o.jdbcUrl, user: o.jdbcUser ?? 'postgres', password: o.jdbcPassword ?? '' };
  pgTargetOf(login);
  return login;
}

/** `tideway chaos`: a cluster on loopback, a checkpointed job, random kills, every row checked. */
export function registerChaosCommand(program: Command): void {
  program
    .command('chaos')
    .description(
      'start a cluster on free loopback ports (a Redis with AOF as state store and lease node, coordinators, the resource manager, workers: ' +
        'each a `tideway cluster start` process with the engine defaults), run a checkpointed Sequence job into an exactly-once sink, ' +
        "SIGKILL or SIGSTOP/SIGCONT random processes one at a time, and report rows expected, seen, lost and duplicated, the job's final status " +
        'and the seconds from each kill until rows moved again. Progress on stderr, the report on stdout. ' +
        'Exit code 0: the job FINISHED with nothing lost or duplicated; 1: it did not; 2: bad flags.',
    )
    .option('--coordinators <n>', 'coordinators: 2 or 3', '2')
    .option('--workers <n>', 'workers, 2 slots each (at least 2, so that the job has slots with one down)', '3')
    .option('--kills <n>', 'how many kills and pauses', '10')
    .option(
      '--sink <kind>',
      'localfile (transactional files), jdbc (PostgreSQL, XA exactly-once), both (one run each of localfile and jdbc), ' +
        'kafka (EXACTLY_ONCE transactions into a new topic, checked by a read_committed consumer) or ' +
        "iceberg (a snapshot per checkpoint into a new table chaos.seq_<seed>_<time> of a hadoop catalog, checked by reading the table's current snapshot with Tideway's Iceberg reader)",
      'localfile',
    )
    .option(
      '--source <kind>',
      'sequence (the Sequence source, paced at --rate) or kafka (a new topic filled first with the same rows, read by the Kafka source from its earliest offset, paced at --rate by read_limit.rows_per_second, its offsets in the checkpoints; needs --kafka-bootstrap)',
      'sequence',
    )
    .option(
      '--jdbc-url <url>',
      'jdbc:postgresql://host:port/db for --sink jdbc (default: a private PostgreSQL started for the run); needs max_prepared_transactions > 0',
    )
    .option('--jdbc-user <user>', 'user for --jdbc-url (default postgres)')
    .option('--jdbc-password <password>', 'password for --jdbc-url (default none)')
    .option(
      '--kafka-bootstrap <host:port>',
      'the Kafka broker of --sink kafka and --source kafka (required with them: the command starts no broker)',
    )
    .option(
      '--iceberg-warehouse <dir>',
      "the local folder of the hadoop catalog of --sink iceberg, where the run's new table stays (default: a folder of the run, removed when the run passes)",
    )
    .option('--seed <n>', 'seed of the random choices (process, signal, pause, gaps), to repeat a run (default: random, printed)')
    .option('--keys <n>', 'keys of the Sequence source', '8')
    .option('--rows-per-key <n>', 'rows per key (default: enough for the kills asked at --rate)')
    .option('--rate <rows>', 'rows per second per reader (the job has 2 readers)', '250')
    .option('--json', 'print the report as JSON')
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
    .action(async (o: ChaosFlags) => {
      // Loaded here: the chaos runner brings the test servers and the Jdbc driver.
      const [{ reportJson, reportText, runPassed }, { runChaos }, { pgTargetOf }] = await Promise.all([
        import('../chaos/chaos-report.js'),
        import('../chaos/chaos-run.js'),
        import('../chaos/sinks.js'),
      ]);
      const sinks = SINKS[o.sink];
      if (!sinks)
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `${o.sink} is not a sink the chaos run knows: use localfile, jdbc, both, kafka or iceberg`,
          {
            place: { option: '--sink' },
          },
        );
      const coordinators = wholeNumber('--coordinators', o.coordinators, 2, 3);
      const workers = wholeNumber('--workers', o.workers, 2, 16);
      const kills = wholeNumber('--kills', o.kills, 0);
      const seed = o.seed === undefined ? randomInt(1, 2 ** 31) : wholeNumber('--seed', o.seed, 0, 2 ** 32 - 1);
      const keys = wholeNumber('--keys', o.keys, 2);
      const rowsPerKey = o.rowsPerKey === undefined ? undefined : wholeNumber('--rows-per-key', o.rowsPerKey, 1);
      const rate = wholeNumber('--rate', o.rate, 1);
      const jdbc = jdbcLogin(o, sinks, pgTargetOf);
      const source = sourceKind(o);
      const kafka = kafkaBootstrap(o, sinks, source);
      const warehouse = icebergWarehouse(o, sinks);
      const engine = engineConfig({});

      const abort = new AbortController();
      const interrupt = () => {
        process.stderr.write('chaos: interrupted, stopping everything it started\n');
        abort.abort(new Error('interrupted'));
      };
      process.on('SIGINT', interrupt);
      process.on('SIGTERM', interrupt);
      const runs: ChaosRunReport[] = [];
      try {
        for (const sink of sinks) {
          abort.signal.throwIfAborted();
          runs.push(
            await runChaos(sink, {
              coordinators,
              workers,
              kills,
              seed,
              keys,
              rowsPerKey,
              rate,
              source,
              jdbc,
              kafkaBootstrap: kafka,
              icebergWarehouse: warehouse,
              cli: [...process.execArgv, process.argv[1]],
              cwd: REPO_ROOT,
              leaseTtlMs: engine.tideway.ha.leaseTtl,
              progress: (line) => process.stderr.write(`${line}\n`),
              signal: abort.signal,
            }),
          );
        }
      } catch (err) {
        if (!abort.signal.aborted) throw err;
        process.exitCode = 130;
        return;
      } finally {
        process.off('SIGINT', interrupt);
        process.off('SIGTERM', interrupt);
      }
      const text = `${o.json ? reportJson(runs) : reportText(runs)}\n`;
      // main exits the process when the action returns: the report must be out by then.
      await new Promise<void>((resolve) => process.stdout.write(text, () => resolve()));
      process.exitCode = runs.every(runPassed) ? 0 : 1;
    });
}
