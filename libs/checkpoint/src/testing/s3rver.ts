import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A private s3rver for tests. */
export interface TestS3Server {
  /** e.g. `http://127.0.0.1:41563` */
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Buckets created at start. */
  readonly buckets: readonly string[];
  stop(): Promise<void>;
}

/**
 * Starts s3rver (npm s3rver 3.7.1) as a child process on a port the kernel picks, in a temp
 * folder, with the given buckets, and resolves once it listens. It runs under
 * `--openssl-legacy-provider`, without which its continuation tokens fail (stack.md).
 */
export async function startS3rver(buckets: readonly string[] = ['tideway']): Promise<TestS3Server> {
  const script = createRequire(import.meta.url).resolve('s3rver/bin/s3rver.js');
  const dir = mkdtempSync(join(tmpdir(), 'tideway-s3rver-'));
  const args = ['--openssl-legacy-provider', script, '-d', dir, '-a', '127.0.0.1', '-p', '0'];
  for (const b of buckets) args.push('--configure-bucket', b);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`s3rver did not start within 20 s:\n${output}`)), 20_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const m = /listening on [\d.]+:(\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`s3rver exited with code ${code} before listening:\n${output}`));
    });
  });
  // Keep draining its log so a chatty server never blocks on a full pipe.
  child.stdout.resume();
  child.stderr.resume();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    buckets,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
