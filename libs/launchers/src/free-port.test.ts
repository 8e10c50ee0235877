import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, freePortRange } from './free-port.js';

const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

describe('freePort', () => {
  it('draws ports below the ephemeral range, never the same one twice, and each one binds', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 50; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(50);
    for (const p of ports) {
      expect(p).toBeGreaterThanOrEqual(20_000);
      expect(p).toBeLessThan(ephemeralLow);
    }
    const s = createServer();
    await new Promise<void>((resolve) => s.listen(ports[0], '127.0.0.1', resolve));
    s.close();
  });

  it("draws under vitest from its worker's own slice of the range, so files running side by side never meet", async () => {
    const id = Number(process.env.VITEST_POOL_ID);
    expect(Number.isInteger(id) && id >= 1).toBe(true);
    const width = Math.floor((ephemeralLow - 20_000) / 8);
    const low = 20_000 + ((id - 1) % 8) * width;
    for (let i = 0; i < 50; i++) {
      const p = await freePort();
      expect(p).toBeGreaterThanOrEqual(low);
      expect(p).toBeLessThan(low + width);
    }
  });

  it('gives consecutive ports none of which is listened on or handed out before', async () => {
    const taken = await freePort();
    const s = createServer();
    await new Promise<void>((resolve) => s.listen(taken, '127.0.0.1', resolve));
    try {
      for (let i = 0; i < 20; i++) {
        const base = await freePortRange(6);
        expect(taken < base || taken >= base + 6).toBe(true);
      }
    } finally {
      s.close();
    }
  });
});
