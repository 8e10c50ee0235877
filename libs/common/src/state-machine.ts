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

  /**
   * A machine that starts from a recorded state instead of moving there (a new leader takes a
   * job over as the state store has it): returns `recorded` when the table knows it, throws otherwise.
   */
  restored(recorded: string): S {
    if (!Object.hasOwn(this.allowed, recorded)) throw new IllegalTransitionError(this.name, '(recorded)', recorded);
    return recorded as S;
  }

  isTerminal(s: S): boolean {
    return this.terminal.includes(s);
  }

  states(): S[] {
    return Object.keys(this.allowed) as S[];
  }
}
