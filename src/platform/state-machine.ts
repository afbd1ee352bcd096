// State machines as tables of allowed moves: a move outside the table is a 409 that says where the object
// may go instead (DESIGN: every state machine rejects illegal moves).
import { Conflict } from './errors';

export type Moves<S extends string> = Readonly<Record<S, readonly S[]>>;

export function canMove<S extends string>(moves: Moves<S>, from: S, to: S): boolean {
  return moves[from]?.includes(to) ?? false;
}

export function assertMove<S extends string>(moves: Moves<S>, from: S, to: S, what: string): void {
  // Staying put is a move only where the table lists it (a published skill published again).
  if (from === to && !canMove(moves, from, to)) throw new Conflict(`The ${what} is already ${to}`);
  if (!canMove(moves, from, to)) {
    const allowed = moves[from] ?? [];
    throw new Conflict(`A ${what} cannot move from ${from} to ${to}; from ${from} it may move to ${allowed.length ? allowed.join(', ') : 'nothing'}`);
  }
}
