import * as grpc from '@grpc/grpc-js';

/**
 * One client per peer address. A channel whose peer has been refusing connections sits in
 * TRANSIENT_FAILURE for its reconnect backoff and fails every call at once ("No connection
 * established"), even after the peer came back on the same address (a worker restarted, a
 * coordinator taking over). A client found in that state is replaced by a fresh one, which
 * connects on its first call: a live peer answers it, a dead one refuses it just as fast.
 *
 * `onDisconnect`, when given, hears of every connection to a peer that was up and went down (the
 * peer's process died and its socket closed, or it closed the connection itself): the caller can
 * check the peer at once instead of waiting for a call to fail or a heartbeat to be missed.
 */
export class ClientPool<C extends grpc.Client> {
  private readonly clients = new Map<string, C>();

  constructor(
    private readonly make: (address: string) => C,
    private readonly onDisconnect?: (address: string) => void,
  ) {}

  get(address: string): C {
    let c = this.clients.get(address);
    if (c && c.getChannel().getConnectivityState(false) === grpc.connectivityState.TRANSIENT_FAILURE) {
      c.close();
      c = undefined;
    }
    if (!c) {
      c = this.make(address);
      this.clients.set(address, c);
      if (this.onDisconnect) this.watch(address, c.getChannel(), c.getChannel().getConnectivityState(false));
    }
    return c;
  }

  /** Follows a channel's states until it is shut down; READY to anything else is a lost connection. */
  private watch(address: string, channel: ReturnType<grpc.Client['getChannel']>, state: grpc.connectivityState): void {
    channel.watchConnectivityState(state, Infinity, () => {
      const now = channel.getConnectivityState(false);
      if (now === grpc.connectivityState.SHUTDOWN) return;
      if (state === grpc.connectivityState.READY && now !== grpc.connectivityState.READY) this.onDisconnect?.(address);
      this.watch(address, channel, now);
    });
  }

  close(): void {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }
}
