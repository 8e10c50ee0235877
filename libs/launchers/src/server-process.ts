import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { freePort } from './free-port.js';
import { portWasTaken } from './test-server.js';

/** How to run one private server process. */
export interface ServerProcessOptions {
  /** Shown in errors, e.g. `PostgreSQL`. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** The server's private folder: removed when the server stops or this process exits. */
  readonly dir: string;
  /** The server's stdout and stderr go here (quoted in start-up errors). */
  readonly logFile: string;
  /** Run as this user (PostgreSQL refuses to run as root). */
  readonly uid?: number;
  readonly gid?: number;
  /** The server's environment (this process's by default). */
  readonly env?: NodeJS.ProcessEnv;
  /** The signal that ends the server quickly without leaving shared memory behind. */
  readonly stopSignal: NodeJS.Signals;
  /**
   * Another process whose life bounds the server's (a broker shared by the test files of one
   * vitest run lives until the run ends): the server is then not ended when this process exits,
   * only by the watchdog once `ownerPid` has gone, or by stop(). Default: this process.
   */
  readonly ownerPid?: number;
}

/** Servers started by this process, ended on exit even when a test forgets stop(). */
const running = new Set<ServerProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const server of running) server.killNow();
  });
}

/**
 * A server process in a temp folder. A detached watchdog shell ends it and removes the folder
 * when this Node process dies without running its exit hooks (SIGKILL, a crashed test worker):
 * a leaked server would otherwise hold its port and folder until the machine reboots.
 */
export class ServerProcess {
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;
  private exitCode: number | null | undefined;
  private stopped = false;

  private constructor(private readonly opts: ServerProcessOptions) {
    const log = openSync(opts.logFile, 'a');
    try {
      this.child = spawn(opts.command, [...opts.args], {
        stdio: ['ignore', log, log],
        uid: opts.uid,
        gid: opts.gid,
        cwd: opts.dir,
        env: opts.env,
        detached: opts.ownerPid !== undefined,
      });
      if (opts.ownerPid !== undefined) this.child.unref();
    } finally {
      closeSync(log);
    }
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code) => {
        this.exitCode = code;
        running.delete(this);
        resolve(code);
      });
      this.child.once('error', () => {
        this.exitCode = -1;
        running.delete(this);
        resolve(-1);
      });
    });
    if (opts.ownerPid === undefined) {
      running.add(this);
      installExitHook();
    }
    this.startWatchdog();
  }

  /** Spawns the server; call waitReady next. */
  static start(opts: ServerProcessOptions): ServerProcess {
    return new ServerProcess(opts);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The last lines the server logged, for error messages. */
  logTail(lines = 15): string {
    try {
      return readFileSync(this.opts.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }

  /**
   * Polls `probe` until it resolves: the server accepts connections. Fails with the server's
   * log when the process exits first or `timeoutMs` passes.
   */
  async waitReady(probe: () => Promise<void>, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let lastError: unknown;
    for (;;) {
      if (this.exitCode !== undefined) {
        throw new Error(`${this.opts.name} exited with code ${this.exitCode} before accepting connections:\n${this.logTail()}`);
      }
      try {
        await probe();
        return;
      } catch (err) {
        lastError = err;
      }
      if (Date.now() > deadline) {
        const tail = this.logTail();
        await this.stop();
        const why = lastError instanceof Error ? lastError.message : String(lastError);
        throw new Error(`${this.opts.name} did not accept connections within ${timeoutMs} ms (${why}):\n${tail}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Whether the process exited already (start-up failures, e.g. the port was taken). */
  hasExited(): boolean {
    return this.exitCode !== undefined;
  }

  /**
   * Ends the server, waits for it to exit (SIGKILL after 10 s) and removes its folder, unless
   * `keepDir` (a restart on the same data follows).
   */
  async stop(opts: { keepDir?: boolean } = {}): Promise<void> {
    if (this.stopped) return this.exited.then(() => undefined);
    this.stopped = true;
    if (this.exitCode === undefined) {
      this.child.kill(this.opts.stopSignal);
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
      await this.exited;
      clearTimeout(timer);
    }
    if (!opts.keepDir) rmSync(this.opts.dir, { recursive: true, force: true });
  }

  /** Synchronous end for the exit hook: signal, then remove the folder. */
  killNow(): void {
    if (this.exitCode === undefined) this.child.kill(this.opts.stopSignal);
    rmSync(this.opts.dir, { recursive: true, force: true });
  }

  private startWatchdog(): void {
    if (this.child.pid !== undefined) startWatchdog(this.child.pid, this.opts.stopSignal, this.opts.dir, this.opts.ownerPid);
  }
}

/**
 * A detached shell that ends process `pid` (`signal`, then SIGKILL 3 s later) and removes `dir`
 * when this Node process dies first without running its exit hooks (SIGKILL, a crashed test
 * worker); it exits by itself once `pid` has ended. Also used for the cluster processes of
 * tests and `tideway chaos`.
 */
export function startWatchdog(pid: number, signal: NodeJS.Signals, dir = '', ownerPid = process.pid): void {
  // Positional args keep paths out of the script text (no quoting issues). SIGCONT first: a
  // paused (SIGSTOP) process would hold the signal pending until the SIGKILL.
  const script =
    'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done; ' +
    'if kill -0 "$2" 2>/dev/null; then kill -s CONT "$2"; kill -s "$4" "$2"; sleep 3; kill -9 "$2" 2>/dev/null; if [ -n "$3" ]; then rm -rf "$3"; fi; fi';
  // dash's kill takes `TERM`, not `SIGTERM` ("invalid signal number or name").
  const name = signal.replace(/^SIG/, '');
  const dog = spawn('sh', ['-c', script, 'tideway-watchdog', String(ownerPid), String(pid), dir, name], {
    detached: true,
    stdio: 'ignore',
  });
  dog.unref();
}

/**
 * Starts a server on a free port and waits until `probe` succeeds. When the server dies because
 * another process took the port first (the port was free a moment earlier), tries a new port,
 * three times in all.
 */
export async function startOnFreePort(
  spawnOn: (port: number) => ServerProcess,
  probe: (port: number) => Promise<void>,
): Promise<{ port: number; server: ServerProcess }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const server = spawnOn(port);
    try {
      await server.waitReady(() => probe(port));
      return { port, server };
    } catch (err) {
      if (attempt < 3 && server.hasExited() && portWasTaken(server.logTail())) continue;
      await server.stop();
      throw err;
    }
  }
}
