import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BroadcastChannel, isMainThread } from 'node:worker_threads';

/**
 * Per-job logs. Every line a process logs while acting for a job carries the job's id: the job
 * is taken from an AsyncLocalStorage context (runForJob, entered where a job's work starts:
 * a submit, a take-over, a scheduled run, an RPC whose request names the job) or, in a task
 * group's worker thread, from the thread's job (setThreadJob). The logger's destination copies
 * every such line (already masked) into a per-job file of this process (JobLogStore): bounded,
 * rotated once, swept when the job's history expires. Worker threads hand their lines to the
 * main thread over a BroadcastChannel, so one writer owns each file.
 */

const jobContext = new AsyncLocalStorage<string>();
let threadJobId: string | undefined;

/** Runs fn (and everything it starts: awaits, timers, callbacks) as work of the job. */
export function runForJob<T>(jobId: string, fn: () => T): T {
  return jobId ? jobContext.run(jobId, fn) : fn();
}

/** The job the current code acts for, if any. */
export function currentJobId(): string | undefined {
  return jobContext.getStore() ?? threadJobId;
}

/** A task group's thread acts for one job for its whole life. */
export function setThreadJob(jobId: string): void {
  threadJobId = jobId;
}

/** pino's numeric levels. */
export const LOG_LEVELS: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/** The name of a numeric level (`level30` for an unknown one). */
export function levelName(n: number): string {
  return Object.entries(LOG_LEVELS).find(([, v]) => v === n)?.[0] ?? `level${n}`;
}

/** Parses a level name, throwing a sentence naming `where` for an unknown one. */
export function parseLevel(name: string, where: string): number {
  const n = LOG_LEVELS[name.toLowerCase()];
  if (n === undefined) throw new Error(`${where}: unknown log level '${name}' (expected one of ${Object.keys(LOG_LEVELS).join(', ')})`);
  return n;
}

const CHANNEL = 'tideway-job-logs';
/** Set in the main thread when per-job logs are kept; worker threads inherit it with the environment. */
const ENV_FLAG = 'TIDEWAY_JOB_LOGS';
let threadChannel: BroadcastChannel | undefined;
let store: JobLogStore | undefined;

/**
 * Where a job's line goes: into this process's store (main thread), or to the main thread
 * (a worker thread of a process that keeps per-job logs); nowhere otherwise.
 */
export function keepJobLine(jobId: string, level: number, line: string): void {
  if (store) {
    store.append(jobId, level, line);
  } else if (!isMainThread && process.env[ENV_FLAG] === '1') {
    if (!threadChannel) {
      threadChannel = new BroadcastChannel(CHANNEL);
      threadChannel.unref();
    }
    threadChannel.postMessage({ jobId, level, line });
  }
}

export interface JobLogSettings {
  /** The folder of this process's job log files. */
  dir: string;
  /**
   * This process's address (host:port), named in the answers and its file names; `local` for
   * local mode (`tideway run`), whose port changes each run, so that each run sweeps the earlier
   * runs' expired files.
   */
  node: string;
  /** coordinator, worker or all. */
  role: string;

  /** Lowest level kept (pino's number). */
  level: number;
  /** A job's file is rotated past this many bytes (one older file is kept: at most twice this per job). */
  maxFileBytes: number;
  /** Files not written for this long are deleted (the job's history expiry). */
  expireMs: number;
}

/** One line read back. */
export interface KeptLogLine {
  node: string;
  role: string;
  timeMs: number;
  level: string;
  msg: string;
  line: string;
}

/** One job's log file of this process. */
export interface KeptLogFile {
  node: string;
  role: string;
  jobId: string;
  logName: string;
  sizeBytes: number;
}

export interface LogQuery {
  minLevel: number;
  sinceMs: number;
  maxLines: number;
}

interface OpenFile {
  fd: number;
  size: number;
  lastWriteMs: number;
}

const SWEEP_INTERVAL_MS = 60_000;
/** A file not written for this long is closed (its job is quiet or over here). */
const IDLE_CLOSE_MS = 60_000;

/** `job-<jobId>-<role>-<host>_<port>.log`: the job id, role and node can be read back from the name. */
const LOG_NAME = /^job-(\d+)-(coordinator|worker|all)-(.+)\.log$/;

/** The log file name of a job on a node. */
export function jobLogName(jobId: string, role: string, node: string): string {
  return `job-${jobId}-${role}-${node.replace(/[^A-Za-z0-9.-]/g, '_')}.log`;
}

/** The job id, role and node name part of a log file name, or undefined. */
export function parseJobLogName(name: string): { jobId: string; role: string; nodePart: string } | undefined {
  const m = LOG_NAME.exec(name);
  return m ? { jobId: m[1], role: m[2], nodePart: m[3] } : undefined;
}

/** This process's per-job log files. */
export class JobLogStore {
  private readonly open = new Map<string, OpenFile>();
  private readonly timer: NodeJS.Timeout;
  private readonly channel: BroadcastChannel;
  private writeFailed = false;

  constructor(readonly settings: JobLogSettings) {
    mkdirSync(settings.dir, { recursive: true });
    this.sweep();
    this.timer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref();
    this.channel = new BroadcastChannel(CHANNEL);
    this.channel.unref();
    this.channel.onmessage = (ev) => {
      const { jobId, level, line } = (ev as { data: { jobId: string; level: number; line: string } }).data;
      this.append(jobId, level, line);
    };
  }

  private path(jobId: string): string {
    return join(this.settings.dir, jobLogName(jobId, this.settings.role, this.settings.node));
  }

  /** What every file name of this process ends with after its job id. */
  private suffix(): string {
    return jobLogName('0', this.settings.role, this.settings.node).slice('job-0'.length);
  }

  /** Appends a line (masked already) of the job, rotating its file past maxFileBytes. */
  append(jobId: string, level: number, line: string): void {
    if (level < this.settings.level || !/^\d+$/.test(jobId)) return;
    try {
      const path = this.path(jobId);
      let f = this.open.get(jobId);
      const bytes = Buffer.byteLength(line);
      if (f && f.size > 0 && f.size + bytes > this.settings.maxFileBytes) {
        closeSync(f.fd);
        this.open.delete(jobId);
        renameSync(path, `${path}.1`);
        f = undefined;
      }
      if (!f) {
        const fd = openSync(path, 'a');
        f = { fd, size: fstatSync(fd).size, lastWriteMs: 0 };
        this.open.set(jobId, f);
      }
      writeSync(f.fd, line.endsWith('\n') ? line : `${line}\n`);
      f.size += bytes;
      f.lastWriteMs = Date.now();
      this.writeFailed = false;
    } catch (err) {
      // Said once per outage, on stderr only (logging it would come back here).
      if (!this.writeFailed)
        process.stderr.write(`tideway: cannot write the log of job ${jobId} under ${this.settings.dir}: ${(err as Error).message}\n`);
      this.writeFailed = true;
    }
  }

  /** The job's kept lines, oldest first: the newest maxLines of those at or above minLevel since sinceMs. */
  read(jobId: string, q: LogQuery): KeptLogLine[] {
    const path = this.path(jobId);
    const out: KeptLogLine[] = [];
    for (const file of [`${path}.1`, path]) readLogFile(file, this.settings.node, this.settings.role, q, out);
    return q.maxLines > 0 && out.length > q.maxLines ? out.slice(out.length - q.maxLines) : out;
  }

  /** This process's job log files (current ones; a rotated predecessor is part of its job's). */
  files(): KeptLogFile[] {
    const suffix = this.suffix();
    const out: KeptLogFile[] = [];
    for (const name of this.names()) {
      if (!name.endsWith(suffix)) continue;
      const parsed = parseJobLogName(name);
      if (!parsed) continue;
      let size: number;
      try {
        size = statSync(join(this.settings.dir, name)).size;
      } catch {
        continue;
      }
      out.push({ node: this.settings.node, role: this.settings.role, jobId: parsed.jobId, logName: name, sizeBytes: size });
    }
    return out;
  }

  private names(): string[] {
    return folderNames(this.settings.dir);
  }

  /** Closes idle files and deletes this node's files not written for expireMs. */
  sweep(now = Date.now()): void {
    for (const [jobId, f] of this.open)
      if (now - f.lastWriteMs > IDLE_CLOSE_MS) {
        closeSync(f.fd);
        this.open.delete(jobId);
      }
    const suffix = this.suffix();
    for (const name of this.names()) {
      if (!name.endsWith(suffix) && !name.endsWith(`${suffix}.1`)) continue;
      const file = join(this.settings.dir, name);
      try {
        const jobId = parseJobLogName(name.replace(/\.1$/, ''))?.jobId;
        if (jobId && this.open.has(jobId)) continue;
        if (now - statSync(file).mtimeMs > this.settings.expireMs) unlinkSync(file);
      } catch {
        // removed meanwhile
      }
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.channel.close();
    for (const f of this.open.values()) closeSync(f.fd);
    this.open.clear();
  }
}

function folderNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Adds the lines of one kept file (a missing file adds none) that pass the query to out. */
function readLogFile(file: string, node: string, role: string, q: LogQuery, out: KeptLogLine[]): void {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return;
  }
  for (const line of text.split('\n')) {
    if (!line) continue;
    let parsed: { level?: unknown; time?: unknown; msg?: unknown };
    try {
      parsed = JSON.parse(line) as typeof parsed;
    } catch {
      continue; // a line cut by a crash
    }
    const level = typeof parsed.level === 'number' ? parsed.level : 0;
    const timeMs = typeof parsed.time === 'number' ? parsed.time : 0;
    if (level < q.minLevel || timeMs < q.sinceMs) continue;
    out.push({ node, role, timeMs, level: levelName(level), msg: typeof parsed.msg === 'string' ? parsed.msg : '', line });
  }
}

/**
 * A job's lines from every file of a log folder, oldest first, without a running process
 * (`tideway logs <jobId> --local`, after a local-mode run); each line's node is its file's node
 * part (`local` for local mode).
 */
export function readJobLogFolder(dir: string, jobId: string, q: LogQuery): KeptLogLine[] {
  const out: KeptLogLine[] = [];
  for (const name of folderNames(dir).sort()) {
    const parsed = parseJobLogName(name);
    if (!parsed || parsed.jobId !== jobId) continue;
    for (const file of [`${name}.1`, name]) readLogFile(join(dir, file), parsed.nodePart, parsed.role, q, out);
  }
  out.sort((a, b) => a.timeMs - b.timeMs);
  return q.maxLines > 0 && out.length > q.maxLines ? out.slice(out.length - q.maxLines) : out;
}

/** Starts keeping per-job logs in this process (and its worker threads started from now on). */
export function configureJobLogs(settings: JobLogSettings): JobLogStore {
  store?.close();
  store = new JobLogStore(settings);
  process.env[ENV_FLAG] = '1';
  return store;
}

/** This process's job log store, when it keeps per-job logs. */
export function jobLogStore(): JobLogStore | undefined {
  return store;
}

/** Stops keeping per-job logs (a process's services stopped). */
export function stopJobLogs(): void {
  store?.close();
  store = undefined;
  delete process.env[ENV_FLAG];
}

/** This process's random id: answers of a process asked twice (coordinator and worker in one) count once. */
export const PROCESS_ID = randomUUID();

/** The default and most lines one answer carries. */
export const DEFAULT_LOG_LINES = 1000;

/** What ReadJobLogs answers from this process's own files (no files when it keeps no per-job logs). */
export function readLocalJobLogs(req: { jobId: string; minLevel: string; sinceMs: number; maxLines: number }): {
  lines: KeptLogLine[];
  files: KeptLogFile[];
  missing: never[];
  processId: string;
} {
  const s = store;
  const answer = { lines: [] as KeptLogLine[], files: [] as KeptLogFile[], missing: [] as never[], processId: PROCESS_ID };
  if (!s) return answer;
  const files = s.files();
  if (!req.jobId) return { ...answer, files };
  answer.files = files.filter((f) => f.jobId === req.jobId);
  answer.lines = s.read(req.jobId, {
    minLevel: req.minLevel ? parseLevel(req.minLevel, 'min_level') : 0,
    sinceMs: req.sinceMs,
    maxLines: req.maxLines > 0 ? req.maxLines : DEFAULT_LOG_LINES,
  });
  return answer;
}
