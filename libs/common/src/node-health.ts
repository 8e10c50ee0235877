import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, freemem, loadavg, totalmem } from 'node:os';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

/** Bytes as SeaTunnel's health monitor writes them: `15.5G`, `812.0M`, or plain bytes under 1 KiB. */
export function numberToUnit(bytes: number): string {
  const units = ['', 'K', 'M', 'G', 'T', 'P', 'E'];
  for (let i = units.length - 1; i > 0; i--) {
    const step = 1024 ** i;
    if (bytes > step) return `${(bytes / step).toFixed(1)}${units[i]}`;
  }
  return String(Math.round(bytes));
}

const percent = (part: number, whole: number) => `${(whole > 0 ? (100 * part) / whole : 0).toFixed(2)}%`;

/** A heap's figures in SeaTunnel's names: V8's used, total and limit as used, total and max. */
export function heapFigures(used: number, total: number, max: number): Record<string, string> {
  return {
    'heap.memory.used': numberToUnit(used),
    'heap.memory.free': numberToUnit(total - used),
    'heap.memory.total': numberToUnit(total),
    'heap.memory.max': numberToUnit(max),
    'heap.memory.used/total': percent(used, total),
    'heap.memory.used/max': percent(used, max),
  };
}

/** Garbage collections of this process since the first processHealth(), as V8 reports them. */
const gc = { minorCount: 0, minorMs: 0, majorCount: 0, majorMs: 0 };
let gcObserver: PerformanceObserver | undefined;

function observeGc(): void {
  if (gcObserver) return;
  gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
        gc.minorCount++;
        gc.minorMs += e.duration;
      } else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR || kind === constants.NODE_PERFORMANCE_GC_INCREMENTAL) {
        gc.majorCount++;
        gc.majorMs += e.duration;
      }
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });
}

/** The figures of /proc (Linux) this answer needs, or nothing elsewhere. */
function procFigures(): { swapTotal?: number; swapFree?: number; threads?: number } {
  try {
    const mem = readFileSync('/proc/meminfo', 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(mem)?.[1] ?? Number.NaN) * 1024;
    const status = readFileSync('/proc/self/status', 'utf8');
    const threads = Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN);
    return { swapTotal: kb('SwapTotal'), swapFree: kb('SwapFree'), threads };
  } catch {
    return {};
  }
}

/** CPU time of this process and of the machine at the last answer, for the load between two answers. */
let lastCpu: { at: number; process: number; busy: number; total: number } | undefined;
let peakThreads = 0;

function machineCpu(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const c of cpus()) {
    const t = c.times.user + c.times.nice + c.times.sys + c.times.irq + c.times.idle;
    total += t;
    busy += t - c.times.idle;
  }
  return { busy, total };
}

/** Process and machine CPU load since the previous answer (since the process started, the first time), in percent. */
function cpuLoad(): { process: number; system: number } {
  const now = performance.now();
  const usage = process.cpuUsage();
  const processMs = (usage.user + usage.system) / 1000;
  const machine = machineCpu();
  const prev = lastCpu ?? { at: 0, process: 0, busy: 0, total: 0 };
  lastCpu = { at: now, process: processMs, ...machine };
  const cores = availableParallelism();
  const wall = now - prev.at;
  return {
    process: wall > 0 ? (100 * (processMs - prev.process)) / (wall * cores) : 0,
    system: machine.total > prev.total ? (100 * (machine.busy - prev.busy)) / (machine.total - prev.total) : 0,
  };
}

/**
 * This process as SeaTunnel's health monitor describes a cluster member (its
 * `/system-monitoring-information` entry), every value text: processors, physical memory and
 * swap, the JavaScript heap (V8's used, total and limit as SeaTunnel's used, total and max), garbage
 * collections (V8's scavenges as minor, mark-compacts as major, since the first call: the
 * coordinator's REST API's first answer, a worker's first heartbeat), CPU load of the process and
 * the machine since the previous call, the load average, and threads.
 * Hazelcast's own figures (executor queues, operations, proxies, client endpoints) have no
 * counterpart in Tideway and are not sent.
 */
export function processHealth(): Record<string, string> {
  observeGc();
  const heap = getHeapStatistics();
  const proc = procFigures();
  const load = cpuLoad();
  const health: Record<string, string> = {
    processors: String(availableParallelism()),
    'physical.memory.total': numberToUnit(totalmem()),
    'physical.memory.free': numberToUnit(freemem()),
  };
  if (proc.swapTotal !== undefined && Number.isFinite(proc.swapTotal) && proc.swapFree !== undefined) {
    health['swap.space.total'] = numberToUnit(proc.swapTotal);
    health['swap.space.free'] = numberToUnit(proc.swapFree);
  }
  Object.assign(health, heapFigures(heap.used_heap_size, heap.total_heap_size, heap.heap_size_limit), {
    'minor.gc.count': String(gc.minorCount),
    'minor.gc.time': `${Math.round(gc.minorMs)}ms`,
    'major.gc.count': String(gc.majorCount),
    'major.gc.time': `${Math.round(gc.majorMs)}ms`,
    'load.process': `${load.process.toFixed(2)}%`,
    'load.system': `${load.system.toFixed(2)}%`,
    'load.systemAverage': loadavg()[0].toFixed(2),
  });
  if (proc.threads !== undefined && Number.isFinite(proc.threads)) {
    peakThreads = Math.max(peakThreads, proc.threads);
    health['thread.count'] = String(proc.threads);
    health['thread.peakCount'] = String(peakThreads);
  }
  return health;
}

/** `host` and `port` of an address `host:port` (`[v6]:port` too). */
export function hostPort(address: string): { host: string; port: string } {
  const m = /^\[?(.*?)\]?:(\d+)$/.exec(address);
  return m ? { host: m[1], port: m[2] } : { host: address, port: '' };
}
