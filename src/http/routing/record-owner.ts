import { Type, type TSchema } from '@sinclair/typebox';
import type { AuthUser } from '../../auth/tokens';
import type { UserStore } from '../../auth/stores/user-store';
import { ADMIN_ROLE } from '../../stores/kit/owner-scope';
import { unprocessable } from '../errors';

// Whose record a POST creates: the caller's, or, for an admin naming `ownerId`, that user's. The store then
// checks the record's references against that user's records (a reference to a record the user does not own
// is the usual 422), so an admin acting for a user can do no more than the user could.

/** The body property, for the create schema and the document. */
export const ownerIdProperty: Record<string, TSchema> = {
  ownerId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        "Admins only: create the record for this user (its references must be that user's records). Anyone else: 422",
    }),
  ),
};

/** The owner of a record to create: the caller, or the user an admin names (422 for a non-admin naming one, or an unknown user). */
export async function ownerOfNew(
  caller: AuthUser,
  body: Record<string, unknown>,
  users: Pick<UserStore, 'findById'>,
): Promise<string> {
  if (body.ownerId === undefined) return caller.id;
  if (caller.role !== ADMIN_ROLE)
    throw unprocessable([{ field: 'ownerId', message: 'is for admins only: a record is created for its caller' }]);
  const ownerId = String(body.ownerId);
  if (ownerId !== caller.id && !(await users.findById(ownerId)))
    throw unprocessable([{ field: 'ownerId', message: 'No such user' }]);
  return ownerId;
}
