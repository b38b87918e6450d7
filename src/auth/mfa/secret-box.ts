import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12; // GCM's nonce size (NIST SP 800-38D): random per sealing
const TAG_BYTES = 16;

interface SealingKey {
  id: string;
  key: Buffer;
}

/**
 * Seals the authenticator secrets before they reach the database (AES-256-GCM): a copy of the table or a
 * backup alone yields no secret. A sealed value is `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url); the
 * user id is its associated data, so a sealed secret moved to another user's row does not open there.
 *
 * Keys are MFA_ENCRYPTION_KEY's entries, each stretched to 256 bits with HKDF; the first seals, all open, and
 * the key id (8 hex digits of a hash of the derived key) says which one sealed a value: to rotate, put the
 * new key in front, and drop the old one once `rewrap` (on each login with a code) has moved its users.
 */
export class SecretBox {
  private readonly keys: SealingKey[];

  constructor(keys: readonly string[]) {
    if (keys.length === 0) throw new Error('SecretBox needs at least one key');
    this.keys = keys.map((secret) => {
      const key = Buffer.from(hkdfSync('sha256', secret, '', 'mfa-secret-sealing/v1', 32));
      return { key, id: createHash('sha256').update(key).digest('hex').slice(0, 8) };
    });
  }

  seal(plaintext: string, owner: string): string {
    const { id, key } = this.keys[0];
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES }).setAAD(Buffer.from(owner));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      VERSION,
      id,
      iv.toString('base64url'),
      ciphertext.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
    ].join('.');
  }

  /** The plaintext; throws when the value was not sealed by one of the keys for this owner (tampered, moved, key dropped). */
  open(sealed: string, owner: string): string {
    const [version, id, iv, ciphertext, tag] = sealed.split('.');
    const entry = this.keys.find((candidate) => candidate.id === id);
    if (version !== VERSION || !entry || iv === undefined || ciphertext === undefined || tag === undefined) {
      throw new Error(`sealed MFA secret not readable with the configured MFA_ENCRYPTION_KEY (key id ${id ?? 'none'})`);
    }
    const decipher = createDecipheriv('aes-256-gcm', entry.key, Buffer.from(iv, 'base64url'), {
      authTagLength: TAG_BYTES,
    })
      .setAAD(Buffer.from(owner))
      .setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** True when the value was sealed with an older key (rotation moves it to the first). */
  isStale(sealed: string): boolean {
    return sealed.split('.')[1] !== this.keys[0].id;
  }
}
