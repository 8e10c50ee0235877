import type { Command } from 'commander';
import { JobStatus, type JobLogLine, type MissingLogNode } from '@tideway/contracts';
import { ConfigError, DEFAULT_LOG_LINES, ErrorCode, LOG_LEVELS, TidewayError, readJobLogFolder, sleep } from '@tideway/common';
import type { JobClient } from '@tideway/client';
import { addressOptions, withClient, type AddressOpts } from './job-commands.js';
import { jobLogDir } from './job-logs-setup.js';
import { engineConfig } from './options.js';

interface LogsOpts extends AddressOpts {
  follow?: boolean;
  level?: string;
  since?: string;
  lines?: string;
  node?: string;
  json?: boolean;
  local?: boolean;
}

const FOLLOW_POLL_MS = 1000;
const ENDED = new Set([JobStatus.FINISHED, JobStatus.FAILED, JobStatus.CANCELED, JobStatus.SAVEPOINT_DONE]);
/** The fields every line has, not shown again after the message. */
const SHOWN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'jobId', 'component']);

/** `--since`: an ISO time, milliseconds since the epoch, or an age such as 90s, 10m, 2h, 1d. */
export function parseSince(text: string, now = Date.now()): number {
  const age = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text.trim());
  if (age) {
    const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[age[2] as 'ms' | 's' | 'm' | 'h' | 'd'];
    return Math.round(now - Number(age[1]) * unit);
  }
  if (/^\d{10,}$/.test(text.trim())) return Number(text.trim());
  const t = Date.parse(text);
  if (Number.isNaN(t))
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `--since ${text}: expected an age (90s, 10m, 2h, 1d), an ISO time (2026-01-31T12:00:00Z) or milliseconds since the epoch`,
    );
  return t;
}

/** One line as a person reads it: time, level, process, component, message, then its other fields. */
export function formatLogLine(l: JobLogLine): string {
  let fields: Record<string, unknown> = {};
  try {
    fields = JSON.parse(l.line) as Record<string, unknown>;
  } catch {
    // shown without its fields
  }
  const extra = Object.entries(fields)
    .filter(([k]) => !SHOWN.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  const time = new Date(l.timeMs).toISOString().replace('T', ' ').slice(0, 23);
  const component = typeof fields.component === 'string' ? `${fields.component}: ` : '';
  return `${time} ${l.level.toUpperCase().padEnd(5)} ${l.role} ${l.node}  ${component}${l.msg}${extra ? `  ${extra}` : ''}`;
}

/** `tideway logs <jobId>`: the job's lines from every coordinator and worker, oldest first. */
export function registerLogsCommand(program: Command): void {
  addressOptions(
    program
      .command('logs')
      .description(
        "a job's log lines from every coordinator and worker that acted for it, oldest first (kept per job and process: tideway.logs, docs/logs.md)",
      )
      .argument('<jobId>')
      .option('-f, --follow', 'keep printing new lines until the job ends (Ctrl-C leaves)')
      .option('--level <level>', `lowest level shown: ${Object.keys(LOG_LEVELS).join(', ')} (default: every line kept, info and up)`)
      .option('--since <when>', 'only lines from then on: an age (90s, 10m, 2h, 1d), an ISO time or epoch milliseconds')
      .option('--lines <n>', 'the newest n lines (default 1000)')
      .option('--node <host:port>', "only this process's lines")
      .option('--json', "each line as the process wrote it (pino's JSON), with its node and role")
      .option(
        '--local',
        "read this host's job log files (tideway.logs.dir of the engine config), e.g. after a local-mode `tideway run`, without a cluster",
      ),
  ).action(async (...params: unknown[]) => {
    const cmd = params[params.length - 1] as Command;
    const opts = cmd.opts<LogsOpts>();
    const q = logQuery(cmd.args[0], opts);
    if (!opts.local) return withClient<LogsOpts>((client) => printLogs(client, q, opts))(...params);
    if (opts.follow)
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        '--follow with --local is not supported: --follow asks a running cluster; a local run writes its file until `tideway run` ends',
      );
    if (opts.address)
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, '--address with --local: --local reads files on this host and asks no coordinator');
    printLocalLogs(jobLogDir(engineConfig(opts)), q, opts);
  });
}

/** The query the options ask for, checked. */
function logQuery(jobId: string, opts: LogsOpts): Query {
  const minLevel = opts.level?.toLowerCase() ?? '';
  if (minLevel && LOG_LEVELS[minLevel] === undefined)
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `--level ${opts.level}: expected one of ${Object.keys(LOG_LEVELS).join(', ')}`);
  const maxLines = opts.lines === undefined ? 0 : Number(opts.lines);
  if (!(Number.isInteger(maxLines) && maxLines >= 0))
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `--lines ${opts.lines}: expected a whole number of lines, e.g. 200`);
  const sinceMs = opts.since === undefined ? 0 : parseSince(opts.since);
  return { jobId, minLevel, sinceMs, maxLines, node: opts.node ?? '' };
}

/** `--local`: the job's lines from this host's files; a job with none here is an error naming the folder. */
function printLocalLogs(dir: string, q: Query, opts: LogsOpts): void {
  const node = q.node.replace(/[^A-Za-z0-9.-]/g, '_');
  const lines = readJobLogFolder(dir, q.jobId, {
    minLevel: q.minLevel ? LOG_LEVELS[q.minLevel] : 0,
    sinceMs: q.sinceMs,
    maxLines: 0,
  }).filter((l) => !q.node || l.node === node);
  if (lines.length === 0 && !readJobLogFolder(dir, q.jobId, { minLevel: 0, sinceMs: 0, maxLines: 1 }).length)
    throw new TidewayError(ErrorCode.NOT_FOUND, `job ${q.jobId} has no log file under ${dir} (tideway.logs.dir)`, { jobId: q.jobId });
  const max = q.maxLines > 0 ? q.maxLines : DEFAULT_LOG_LINES;
  for (const l of lines.slice(Math.max(0, lines.length - max))) printLine(l, opts);
}

function printLine(l: JobLogLine, opts: LogsOpts): void {
  process.stdout.write(
    `${opts.json ? JSON.stringify({ node: l.node, role: l.role, ...(JSON.parse(l.line) as object) }) : formatLogLine(l)}\n`,
  );
}

interface Query {
  jobId: string;
  minLevel: string;
  sinceMs: number;
  maxLines: number;
  node: string;
}

async function printLogs(client: JobClient, q: Query, opts: LogsOpts): Promise<void> {
  const print = (l: JobLogLine) => printLine(l, opts);
  const missingSaid = new Map<string, string>();
  const sayMissing = (missing: MissingLogNode[]) => {
    for (const m of missing)
      if (missingSaid.get(m.node) !== m.reason) {
        process.stderr.write(`tideway: the lines of ${m.role} ${m.node} are missing: it did not answer (${m.reason})\n`);
        missingSaid.set(m.node, m.reason);
      }
  };
  const first = await client.logs(q);
  for (const l of first.lines) print(l);
  sayMissing(first.missing);
  if (!opts.follow) return;
  // Lines at the last time seen may be read again: the ones printed are remembered.
  let lastMs = first.lines.at(-1)?.timeMs ?? q.sinceMs;
  let atLast = new Set(first.lines.filter((l) => l.timeMs === lastMs).map((l) => `${l.node} ${l.line}`));
  let stopping = false;
  const onSigint = () => {
    stopping = true;
  };
  process.once('SIGINT', onSigint);
  try {
    for (let ended = false; !stopping; ) {
      await sleep(FOLLOW_POLL_MS);
      // One more read after the job ended: its last lines.
      const status = (await client.get(q.jobId)).status;
      const res = await client.logs({ ...q, sinceMs: lastMs, maxLines: 0 });
      sayMissing(res.missing);
      for (const l of res.lines) {
        const key = `${l.node} ${l.line}`;
        if (l.timeMs === lastMs && atLast.has(key)) continue;
        print(l);
        if (l.timeMs > lastMs) {
          lastMs = l.timeMs;
          atLast = new Set();
        }
        atLast.add(key);
      }
      if (ended) break;
      ended = ENDED.has(status);
    }
  } finally {
    process.off('SIGINT', onSigint);
  }
}
