/**
 * startRabbitMq: a private broker from Debian's rabbitmq-server on free ports (its own epmd,
 * cookie and node name), answering AMQP 0-9-1, and gone with its folder after stop().
 */
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isListening, startRabbitMq } from './index.js';

/** The broker's first frame after the protocol header: a method frame (type 1) of Connection.Start (class 10, method 10). */
function connectionStart(port: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: '127.0.0.1', port });
    sock.on('error', reject);
    sock.on('connect', () => sock.write(Buffer.from('AMQP\x00\x00\x09\x01', 'latin1')));
    sock.once('data', (b: Buffer) => {
      sock.destroy();
      resolve(b);
    });
  });
}

describe('startRabbitMq', () => {
  it('starts a private broker on free ports that answers AMQP, and stop() ends it and removes its folder', async () => {
    const server = await startRabbitMq();
    try {
      expect(server.port).not.toBe(5672);
      expect(server.url).toBe(`amqp://guest:guest@127.0.0.1:${server.port}/`);
      const frame = await connectionStart(server.port);
      expect(frame[0]).toBe(1);
      expect([frame.readUInt16BE(7), frame.readUInt16BE(9)]).toEqual([10, 10]);
    } finally {
      await server.stop();
    }
    expect(existsSync(server.dir)).toBe(false);
    expect(await isListening(server.port)).toBe(false);
  }, 180_000);
});
