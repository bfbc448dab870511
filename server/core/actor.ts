import { forbidden } from "./errors";

/** Who is acting: handed to every core function by its adapter, never read from a request by core. */
export interface Actor {
  id: number;
  login: string;
  isAdmin: boolean;
  /** The session (token) the actor acts through, when the adapter knows it: some actions spare it. */
  session?: string;
}

export function requireAdmin(actor: Actor): void {
  if (!actor.isAdmin) throw forbidden();
}

/** A manager acts only for himself; an admin for anyone. */
export function requireSelfOrAdmin(actor: Actor, userId: number): void {
  if (!actor.isAdmin && actor.id !== userId) throw forbidden("Можно работать только со своими данными");
}
