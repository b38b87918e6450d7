// Identities at OpenID Connect providers linked to local users (docs/authentication.md): one row per
// (issuer, subject), the pair the OpenID Connect Core spec makes unique and stable for an end-user; never
// an email. Table `linked_identities` (migration 0011), collection of the same name on MongoDB.

export interface LinkedIdentity {
  /** The provider's `iss`, exactly as its discovery document states it. */
  issuer: string;
  /** The provider's `sub` for the end-user (at most 255 ASCII characters, OpenID Connect Core §2). */
  subject: string;
  userId: string;
  /** The configured provider name (OIDC_PROVIDERS) it was linked through: what the user sees. */
  provider: string;
  linkedAt: Date;
}

export interface IdentityStore {
  find(issuer: string, subject: string): Promise<LinkedIdentity | null>;
  /** The user's identities, oldest first. */
  listByUser(userId: string): Promise<LinkedIdentity[]>;
  /** Throws DuplicateKeyError when (issuer, subject) is linked already (to anyone). Linked now unless `linkedAt` says when (an identity put back). */
  link(identity: Omit<LinkedIdentity, 'linkedAt'>): Promise<LinkedIdentity>;
  /** The user's identities at this issuer go; how many went. */
  unlink(userId: string, issuer: string): Promise<number>;
  /** Every identity of the user goes (a deleted user); how many went. */
  removeUser(userId: string): Promise<number>;
}
