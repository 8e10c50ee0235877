import * as grpc from '@grpc/grpc-js';
import { ErrorCode, TidewayError, backoffDelay, sleep } from '@tideway/common';
import { ClientPool } from './client-pool.js';
import { leaderOf } from './errors.js';

/** Whether a client error says the peer could not be reached at all (refused, timed out). */
export function isUnreachable(err: unknown): boolean {
  const e = err as TidewayError | undefined;
  const grpcCode = (e?.details as { grpcCode?: number } | undefined)?.grpcCode;
  return e?.code === ErrorCode.INTERNAL && (grpcCode === grpc.status.UNAVAILABLE || grpcCode === grpc.status.DEADLINE_EXCEEDED);
}

/**
 * Calls the leader among several coordinators. It starts with the last leader it knew (or the
 * first address), follows a follower's redirect (UNAVAILABLE with the leader's address in the
 * trailers) at once, tries the next address when one cannot be reached or knows no leader, and
 * backs off after each full round, until the time budget is spent. One client per address.
 */
export class LeaderCaller<C extends grpc.Client> {
  private readonly clients: ClientPool<C>;
  private readonly addresses: string[];
  private guess: string;

  constructor(addresses: readonly string[], make: (address: string) => C) {
    this.clients = new ClientPool(make);
    if (addresses.length === 0) throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, 'no coordinator address was given');
    this.addresses = [...new Set(addresses)];
    this.guess = this.addresses[0]!;
  }

  /** The coordinator believed to lead (where the next call goes first). */
  get leader(): string {
    return this.guess;
  }

  /** Every address known, the configured ones and those learnt from redirects. */
  get known(): readonly string[] {
    return this.addresses;
  }

  /** A leader learnt elsewhere (an RPC from it carried its address). */
  noteLeader(address: string): void {
    if (!address) return;
    if (!this.addresses.includes(address)) this.addresses.push(address);
    this.guess = address;
  }

  client(address: string): C {
    return this.clients.get(address);
  }

  /**
   * Runs `fn` against the leader. Errors other than "not the leader" and "unreachable" are the
   * leader's answer and are thrown as they are; when the budget is spent the last error is.
   */
  async call<Res>(fn: (client: C, address: string) => Promise<Res>, budgetMs = 30_000): Promise<Res> {
    const deadline = Date.now() + budgetMs;
    let tried = 0;
    let round = 0;
    for (;;) {
      const address = this.guess;
      try {
        return await fn(this.client(address), address);
      } catch (err) {
        const redirect = leaderOf(err);
        const notLeader = (err as TidewayError).code === ErrorCode.NOT_LEADER;
        if (!notLeader && !isUnreachable(err)) throw err;
        if (Date.now() >= deadline) throw err;
        if (notLeader && redirect && redirect !== address) {
          this.noteLeader(redirect);
          continue;
        }
        this.guess = this.addresses[(this.addresses.indexOf(address) + 1) % this.addresses.length]!;
        if (++tried % this.addresses.length === 0) {
          await sleep(Math.min(backoffDelay(round++, 100, 2000), Math.max(0, deadline - Date.now())));
        }
      }
    }
  }

  close(): void {
    this.clients.close();
  }
}
