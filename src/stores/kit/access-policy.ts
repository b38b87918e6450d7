import { ADMIN_ROLE, ownerScope, type OwnerScope } from './owner-scope';

// Who may read and who may write a resource's records, declared with the resource (`access`), in a small closed
// vocabulary (docs/modules.md, "Who may read and write"). The routes, the scopes of every read and write, the
// references and includes, the API document and the contract suites all read it from here.

/** `owner`: each user their own records (admins all); `authenticated`: every signed-in user all; `public`: anyone, no token. */
export type ReadPolicy = 'owner' | 'authenticated' | 'public';
/** `owner`: each user creates and changes their own; `admin`: admins only; `role:<name>`: that role's holders (and admins). */
export type WritePolicy = 'owner' | 'admin' | `role:${string}`;

export interface ResourceAccess {
  read: ReadPolicy;
  write: WritePolicy;
}

export const OWNER_ACCESS: ResourceAccess = { read: 'owner', write: 'owner' };

/**
 * The owner of a catalogue's records (a resource that only admins or one role write): they belong to no user,
 * so a unique key holds across the whole catalogue and the owner-first list indexes serve its reads.
 */
export const CATALOGUE_OWNER = 'catalogue';

const READ_POLICIES: readonly ReadPolicy[] = ['owner', 'authenticated', 'public'];
const ROLE = /^role:[A-Za-z0-9_-]{1,64}$/;

type Caller = { id: string; role: string };

/** A catalogue: written by admins or one role, its records nobody's. */
export const isCatalogue = (access: ResourceAccess) => access.write !== 'owner';

/** What is wrong with a declared policy (start-up names the resource). */
export function accessProblems(access: ResourceAccess): string[] {
  const problems: string[] = [];
  if (!READ_POLICIES.includes(access.read)) problems.push(`read must be ${READ_POLICIES.join(', ')}`);
  if (access.write !== 'owner' && access.write !== 'admin' && !ROLE.test(access.write))
    problems.push('write must be owner, admin or role:<name>');
  // Written by a few, read by their owner only: nobody but the writers would ever see a record.
  if (access.read === 'owner' && isCatalogue(access))
    problems.push(`write ${access.write} needs read authenticated or public (its records are nobody's)`);
  return problems;
}

/** The roles that may write (undefined: any signed-in user, each their own records). */
export function writerRoles(access: ResourceAccess): string[] | undefined {
  if (access.write === 'owner') return undefined;
  if (access.write === 'admin') return [ADMIN_ROLE];
  return [...new Set([access.write.slice('role:'.length), ADMIN_ROLE])];
}

/** Which records a caller (none on a public read) reads: their own, everyone's, or the catalogue's. */
export function readScope(access: ResourceAccess, caller: Caller | undefined): OwnerScope {
  if (isCatalogue(access)) return { ownerId: CATALOGUE_OWNER };
  if (access.read === 'owner') return caller ? ownerScope(caller) : { ownerId: '' }; // an owner read always has a caller
  return {};
}

/** Which records a writer (the route checked the role) changes: their own (admins: all), or the catalogue's. */
export function writeScope(access: ResourceAccess, caller: Caller): OwnerScope {
  return isCatalogue(access) ? { ownerId: CATALOGUE_OWNER } : ownerScope(caller);
}

/**
 * The scope a reference to a record of `target` is checked in, for a record owned by `ownerId`: the same owner
 * where the target is read by its owner only, the catalogue's for a catalogue, any record where all may read.
 */
export function referenceScope(target: ResourceAccess, ownerId: string): OwnerScope {
  if (target.read === 'owner') return { ownerId };
  return readScope(target, undefined);
}
