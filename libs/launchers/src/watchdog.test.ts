import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isListening } from './free-port.js';

describe('servers of a killed process', () => {
  it('are ended and their folders removed when the owning process dies by SIGKILL', async () => {
    const index = fileURLToPath(new URL('./index.ts', import.meta.url));
    const script = `import { startRedis } from ${JSON.stringify(index)};
const s = await startRedis();
console.log(JSON.stringify({ port: s.port, dir: s.dir }));
setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const info = await new Promise<{ port: number; dir: string }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve(JSON.parse(line) as { port: number; dir: string });
      });
      child.once('exit', (code) => reject(new Error(`child exited with ${code} before starting Redis`)));
    });
    expect(await isListening(info.port)).toBe(true);
    child.kill('SIGKILL');
    const deadline = Date.now() + 10_000;
    while ((await isListening(info.port)) || existsSync(info.dir)) {
      if (Date.now() > deadline) throw new Error(`Redis on port ${info.port} survived its owner`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });
});
