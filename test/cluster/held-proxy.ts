import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on a free loopback port that holds every connection (nothing passes either way)
 * until `release()`: whatever talks through it stays blocked in its first exchange, e.g. a
 * Jdbc source reading its schema while a job is planned.
 */
export class HeldProxy {
  private released = false;
  private readonly waiting: Socket[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {
    server.on('connection', (client) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      client.on('error', () => undefined);
      client.pause();
      if (this.released) this.forward(client);
      else this.waiting.push(client);
    });
  }

  static async start(target: { host: string; port: number }): Promise<HeldProxy> {
    const server = createServer({ pauseOnConnect: true });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new HeldProxy(server, (server.address() as { port: number }).port, target);
  }

  /** Connections held so far. */
  get held(): number {
    return this.waiting.length;
  }

  /** Lets every held and later connection through. */
  release(): void {
    this.released = true;
    for (const c of this.waiting.splice(0)) this.forward(c);
  }

  private forward(client: Socket): void {
    const upstream = createConnection(this.target);
    this.sockets.add(upstream);
    upstream.on('close', () => this.sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
