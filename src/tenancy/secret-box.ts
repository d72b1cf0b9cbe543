/**
 * Callback secrets at rest: sealed with AES-256-GCM under a key kept in its own file (mode 0600,
 * beside root.token), so a copy of tenancy.sqlite alone cannot sign callbacks. The company name is
 * the additional authenticated data: a sealed secret moved to another company's row does not open.
 * Stored form: `enc1:` + base64(12-byte IV | ciphertext | 16-byte tag).
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { voxdexError } from '../errors.js';

const PREFIX = 'enc1:';

export class SecretBox {
  readonly #key: Buffer;
  /** Where the key came from, for messages. */
  readonly source: string;

  constructor(key: Buffer, source: string) {
    if (key.length !== 32) throw voxdexError('SECRET_KEY_INVALID', `The secret key in ${source} must be 32 bytes (64 hex characters); restore it from a backup.`);
    this.#key = key;
    this.source = source;
  }

  /** A key that lives only in this process (in-memory databases in tests). */
  static ephemeral(): SecretBox {
    return new SecretBox(randomBytes(32), 'memory');
  }

  /** A value that identifies the key without revealing it (HMAC of a fixed text), to check that nodes share one key. */
  fingerprint(): string {
    return createHmac('sha256', this.#key).update('voxdex secrets key check v1').digest('hex');
  }

  /** A 32-byte key for another use of the installation's key (HKDF-SHA256 with the purpose as info): audio at rest. */
  derive(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.#key, Buffer.alloc(0), `voxdex ${purpose} v1`, 32));
  }

  static isSealed(value: string): boolean {
    return value.startsWith(PREFIX);
  }

  seal(plain: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
  }

  open(sealed: string, context: string): string {
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
    } catch {
      throw voxdexError(
        'SECRET_KEY_INVALID',
        `The callback secret of ${context} cannot be decrypted with the key in ${this.source}: the key file was replaced or the database comes from another installation. Restore the key file that belongs to this tenancy.sqlite.`,
      );
    }
  }
}
