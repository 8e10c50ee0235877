import * as grpc from '@grpc/grpc-js';

/**
 * One client per peer address. A channel whose peer has been refusing connections sits in
 * TRANSIENT_FAILURE for its reconnect backoff and fails every call at once ("No connection
 * established"), even after the peer came back on the same address (a worker restarted, a
 * coordinator taking over). A client found in that state is replaced by a fresh one, which
 * connects on its first call: a live peer answers it, a dead one refuses it just as fast.
 */
export class ClientPool<C extends grpc.Client> {
  private readonly clients = new Map<string, C>();

  constructor(private readonly make: (address: string) => C) {}

  get(address: string): C {
    let c = this.clients.get(address);
    if (c && c.getChannel().getConnectivityState(false) === grpc.connectivityState.TRANSIENT_FAILURE) {
      c.close();
      c = undefined;
    }
    if (!c) {
      c = this.make(address);
      this.clients.set(address, c);
    }
    return c;
  }

  close(): void {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }
}
