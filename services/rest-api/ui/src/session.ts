/**
 * The dashboard's sign-in: the bearer token of this tab (sessionStorage: gone when the tab
 * closes, never sent to another origin), sent with every call, and the state the pages react
 * to: whether the REST API asked for a token (a 401) and which generation of pages is current
 * (a new one after sign-in or sign-out, so that every page asks again).
 */
import { useEffect, useState } from 'preact/hooks';

const KEY = 'tideway.token';

export interface Session {
  /** The REST API's sentence of the last 401, while a (new) token is needed; '' otherwise. */
  readonly needed: string;
  readonly signedIn: boolean;
  /** Bumped by sign-in and sign-out: pages keyed by it load again with the new token. */
  readonly generation: number;
}

let session: Session = { needed: '', signedIn: sessionStorage.getItem(KEY) !== null, generation: 0 };
const listeners = new Set<(s: Session) => void>();

function set(next: Partial<Session>): void {
  session = { ...session, ...next };
  for (const l of listeners) l(session);
}

/** `authorization: Bearer <token>` when signed in, nothing otherwise. */
export function authHeaders(): Record<string, string> {
  const token = sessionStorage.getItem(KEY);
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** Keeps the token for this tab and loads the pages again with it. */
export function signIn(token: string): void {
  sessionStorage.setItem(KEY, token.trim());
  set({ needed: '', signedIn: true, generation: session.generation + 1 });
}

/** Forgets the token; the pages load again (and ask for a token if the cluster needs one). */
export function signOut(): void {
  sessionStorage.removeItem(KEY);
  set({ needed: '', signedIn: false, generation: session.generation + 1 });
}

/** A call answered 401: a token sent with it is no good and is forgotten; the sign-in form shows `message`. */
export function unauthenticated(message: string): void {
  sessionStorage.removeItem(KEY);
  set({ needed: message, signedIn: false });
}

/** The session, re-rendering the component when it changes. */
export function useSession(): Session {
  const [s, setS] = useState(session);
  useEffect(() => {
    listeners.add(setS);
    setS(session);
    return () => void listeners.delete(setS);
  }, []);
  return s;
}
