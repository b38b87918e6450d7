import { hasPassword } from './passwords';
import type { WaysIn } from './stores/sign-in-method-store';

/**
 * Whether what a removal leaves still signs the user in: a password, a passkey or a provider's identity. Every
 * flow that removes a way in (a passkey, a provider's link) passes it to SignInMethodStore.removeUnlessLast,
 * which applies it under the lock, so two removals racing cannot both pass it.
 */
export const keepsAWayIn = (left: WaysIn): boolean =>
  hasPassword(left.passwordHash) || left.passkeys + left.identities > 0;
