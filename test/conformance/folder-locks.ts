/**
 * Lets conformance cases run two at a time without touching each other's files. A case names the
 * folders it writes and removes (caseFolders); two cases conflict when a folder of one lies in a
 * folder of the other, and a case marked exclusive (it lays the shared fixture files, or clears
 * a folder every LocalFile sink uses: the transactions under the default tmp_path, /tmp/seatunnel/seatunnel) conflicts with
 * every other. A case waits until it conflicts with none of the running ones and fewer than
 * `width` run.
 */
export interface FolderClaim {
  readonly folders: readonly string[];
  readonly exclusive: boolean;
}

/** Where every LocalFile sink keeps its transactions unless its config says otherwise (tmp_path/seatunnel). */
const SHARED_BY_EVERY_SINK = ['/tmp/seatunnel/seatunnel'];

const inside = (a: string, b: string) => a === b || a.startsWith(`${b}/`);

/** Whether clearing `folder` could remove what another case writes in a shared default folder. */
export function clearsSharedFolder(folder: string): boolean {
  return SHARED_BY_EVERY_SINK.some((s) => inside(s, folder) || inside(folder, s));
}

function conflict(a: FolderClaim, b: FolderClaim): boolean {
  if (a.exclusive || b.exclusive) return true;
  return a.folders.some((x) => b.folders.some((y) => inside(x, y) || inside(y, x)));
}

export class FolderLocks {
  private readonly running = new Set<FolderClaim>();
  private readonly waiting: Array<{ claim: FolderClaim; start: () => void }> = [];

  constructor(private readonly width: number) {}

  /** Runs `fn` once `claim` conflicts with no running case. */
  async run<T>(claim: FolderClaim, fn: () => Promise<T>): Promise<T> {
    await new Promise<void>((start) => {
      this.waiting.push({ claim, start });
      this.admit();
    });
    try {
      return await fn();
    } finally {
      this.running.delete(claim);
      this.admit();
    }
  }

  /** Starts waiting cases in order; one that must wait does not hold back a later one that need not. */
  private admit(): void {
    for (let i = 0; i < this.waiting.length && this.running.size < this.width; ) {
      const w = this.waiting[i];
      if ([...this.running].some((r) => conflict(r, w.claim))) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.running.add(w.claim);
      w.start();
    }
  }
}
