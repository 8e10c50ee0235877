import { IllegalTransitionError } from './errors.js';

/**
 * A state machine as data: the allowed transitions and the terminal states. `transition`
 * throws IllegalTransitionError for any move the table does not list.
 */
export class StateMachineSpec<S extends string> {
  constructor(
    readonly name: string,
    private readonly allowed: Readonly<Record<S, readonly S[]>>,
    private readonly terminal: readonly S[],
  ) {}

  canTransition(from: S, to: S): boolean {
    return this.allowed[from]?.includes(to) ?? false;
  }

  /** Returns `to` when allowed, throws otherwise. */
  transition(from: S, to: S): S {
    if (!this.canTransition(from, to)) throw new IllegalTransitionError(this.name, from, to);
    return to;
  }

  isTerminal(s: S): boolean {
    return this.terminal.includes(s);
  }

  states(): S[] {
    return Object.keys(this.allowed) as S[];
  }
}
