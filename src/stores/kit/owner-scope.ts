/** The role that sees and changes every record, whoever owns it. */
export const ADMIN_ROLE = 'admin';

/**
 * Which records a caller may see: their own (`ownerId` set), or all of them (admins). Stores add the owner
 * to every query's filter, so someone else's record is simply not found: 404, never 403, and nothing tells
 * a caller that the id exists.
 */
export interface OwnerScope {
  ownerId?: string;
}

export function ownerScope(caller: { id: string; role: string }): OwnerScope {
  return caller.role === ADMIN_ROLE ? {} : { ownerId: caller.id };
}
