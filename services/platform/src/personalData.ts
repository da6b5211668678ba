/**
 * Crypto-shredding of personal data. Every personal field (name, email, phone, bio,
 * photo, country, KYC documents, wallet addresses) is sealed with its owner's own AES-256-GCM key before it
 * is written to an event, a read model, the outbox, the bus or the email outbox. Deleting the user destroys
 * the key (identity owns the keys); from then on every copy anywhere (stored events, topics, backups) is
 * unreadable, while ids and amounts stay in the clear.
 *
 * Sealed text: `pd1.<userId, base64url>.<iv>.<ciphertext>.<tag>` (base64url parts, random 96-bit iv, the
 * user id as additional authenticated data, so a value cannot be moved to another user). Binary values
 * (documents) use the same layout in a Buffer: magic `PDB1`, u16 userId length, userId, iv, tag, ciphertext.
 *
 * Values that are not sealed are returned as they are when opened: data written before sealing existed
 * stays readable (and is sealed the next time it is written).
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomFillSync } from 'node:crypto';
import { DomainError } from './eventSourcing/errors.js';
import { readIdentityEvent } from './domain/identityEvents.js';
import { DEV_INTERNAL_SERVICE_TOKEN, commonEnvValue } from './config.js';

export const SEALED_PREFIX = 'pd1.';
const BINARY_MAGIC = Buffer.from('PDB1', 'ascii');

/** Where the per-user keys live. Identity holds them; other services reach them through identity. */
export interface PersonalDataKeys {
  /** The user's key (32 bytes), or null when the user has none (never had one, or it was destroyed). */
  find(userId: string): Promise<Buffer | null>;
  /**
   * The user's key, created when missing. Only the key's owner (identity) implements it fully. Fails with
   * `UserKeyDestroyedError` for a user whose key was destroyed (a tombstone): a deleted user's key never
   * comes back, so nothing new about them can be written readable.
   */
  findOrCreate(userId: string): Promise<Buffer>;
  /**
   * Destroys the key: every value sealed with it is unreadable from now on, and the user id is kept as a
   * tombstone (the id only) so no new key is ever created for it. Idempotent.
   */
  destroy(userId: string): Promise<void>;
}

/** What a writer gets when it would seal a value for a deleted user (their key destroyed, tombstoned). */
export const USER_DELETED_MESSAGE = 'This account has been deleted';
export const USER_DELETED_CODE = 'USER_DELETED';

/**
 * Sealing for a user whose key was destroyed (the user was deleted): the write is refused (a precondition:
 * 400 / FAILED_PRECONDITION with code USER_DELETED) instead of a new key being made for them.
 */
export class UserKeyDestroyedError extends DomainError {
  constructor(readonly userId: string) {
    super('precondition', USER_DELETED_MESSAGE, USER_DELETED_CODE);
    this.name = 'UserKeyDestroyedError';
  }
}

/** True for the refusal to seal for a deleted user (also as it crosses gRPC: the code or the message). */
export const isUserKeyDestroyed = (err: unknown): boolean =>
  err instanceof UserKeyDestroyedError ||
  (err instanceof DomainError && err.code === USER_DELETED_CODE) ||
  (err instanceof Error && (err as { code?: unknown }).code === USER_DELETED_CODE);

export const isSealed = (value: unknown): value is string =>
  typeof value === 'string' && value.startsWith(SEALED_PREFIX);

export const isSealedBinary = (value: Buffer): boolean =>
  value.length > 6 && value.subarray(0, 4).equals(BINARY_MAGIC);

/** The owner's id of a sealed value (readable without the key), or null when it is not sealed. */
export function sealedOwner(value: string): string | null {
  if (!isSealed(value)) return null;
  const part = value.split('.')[1];
  return part === undefined ? null : Buffer.from(part, 'base64url').toString('utf8');
}

export function sealWithKey(userId: string, key: Buffer, plain: string): string {
  const iv = freshIv();
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const owner = Buffer.from(userId, 'utf8');
  cipher.setAAD(owner);
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [
    'pd1',
    owner.toString('base64url'),
    iv.toString('base64url'),
    ct.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
  ].join('.');
}

/** Opens a sealed value with its owner's key. Throws when the value was tampered with or the key is wrong. */
export function openWithKey(sealed: string, key: Buffer): string {
  const parts = sealed.split('.');
  if (parts.length !== 5 || parts[0] !== 'pd1') throw new Error('malformed sealed personal data');
  const [, owner, iv, ct, tag] = parts;
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
  decipher.setAAD(Buffer.from(owner, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}

export function sealBinaryWithKey(userId: string, key: Buffer, plain: Buffer): Buffer {
  const iv = freshIv();
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const owner = Buffer.from(userId, 'utf8');
  cipher.setAAD(owner);
  const ct = Buffer.concat([cipher.update(plain), cipher.final()]);
  const len = Buffer.alloc(2);
  len.writeUInt16BE(owner.length);
  return Buffer.concat([BINARY_MAGIC, len, owner, iv, cipher.getAuthTag(), ct]);
}

function binaryOwner(sealed: Buffer): { owner: Buffer; rest: Buffer } {
  const len = sealed.readUInt16BE(4);
  return { owner: sealed.subarray(6, 6 + len), rest: sealed.subarray(6 + len) };
}

export function openBinaryWithKey(sealed: Buffer, key: Buffer): Buffer {
  const { owner, rest } = binaryOwner(sealed);
  const decipher = createDecipheriv('aes-256-gcm', key, rest.subarray(0, 12), { authTagLength: 16 });
  decipher.setAAD(owner);
  decipher.setAuthTag(rest.subarray(12, 28));
  return Buffer.concat([decipher.update(rest.subarray(28)), decipher.final()]);
}

const IV_BYTES = 12;
/** CSPRNG bytes drawn 4 KiB at a time for the ivs; each iv is copied out and its bytes never handed out again. */
const ivPool = Buffer.alloc(IV_BYTES * 341);
let ivPoolAt = ivPool.length;

/**
 * A fresh random 96-bit iv. Drawn from a pool filled by one randomFillSync per 341 ivs (as Node pools the
 * entropy of randomUUID): the web-crypto getRandomValues per seal was half of a seal's cost, and the
 * gateway seals the client address of every authenticated request.
 */
function freshIv(): Buffer {
  if (ivPoolAt + IV_BYTES > ivPool.length) {
    randomFillSync(ivPool);
    ivPoolAt = 0;
  }
  const iv = Buffer.from(ivPool.subarray(ivPoolAt, ivPoolAt + IV_BYTES));
  ivPool.fill(0, ivPoolAt, ivPoolAt + IV_BYTES);
  ivPoolAt += IV_BYTES;
  return iv;
}

function cryptoRandom(bytes: number): Buffer {
  return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
}

/** What a reader shows in place of a field whose owner was deleted (the key is gone). */
export const SHREDDED = '[deleted]';

export interface PersonalDataCache {
  /** Keys kept in memory at most (the oldest dropped first). */
  maxCachedKeys?: number;
  /**
   * How long a key is used from memory before it is asked for again. `forget` reaches only the process
   * that heard the deletion; another replica of the same service stops opening the user's data when its
   * copy ages out.
   */
  keyTtlMs?: number;
  now?: () => number;
}

/**
 * Seals and opens personal data with the owner's key, keeping keys it has used in memory (bounded in
 * number and in age). `forget(userId)` drops a cached key: call it when the user's deletion is heard
 * (UserDeleted).
 */
export class PersonalData {
  private readonly cache = new Map<string, { key: Buffer; until: number }>();
  private readonly maxCachedKeys: number;
  private readonly keyTtlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly keys: PersonalDataKeys,
    cache: PersonalDataCache = {},
  ) {
    this.maxCachedKeys = cache.maxCachedKeys ?? 100_000;
    this.keyTtlMs = cache.keyTtlMs ?? 60_000;
    this.now = cache.now ?? Date.now;
  }

  /** Seals `plain` for `userId` (creating the user's key when the key store allows it). */
  async seal(userId: string, plain: string): Promise<string> {
    return sealWithKey(userId, await this.keyForWrite(userId), plain);
  }

  async sealBinary(userId: string, plain: Buffer): Promise<Buffer> {
    return sealBinaryWithKey(userId, await this.keyForWrite(userId), plain);
  }

  /**
   * A keyed digest of `plain` for `userId` (HMAC-SHA256 under a key derived from the user's key, base64url):
   * the same value gives the same digest, so two sealed copies (sealing is randomised) can be compared
   * without opening them, e.g. by a pure decider; once the key is destroyed the digest links to nothing.
   */
  async digest(userId: string, plain: string): Promise<string> {
    const key = await this.keyForWrite(userId);
    const derived = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'meridian/pd-digest/v1', 32));
    return createHmac('sha256', derived).update(plain, 'utf8').digest('base64url');
  }

  /**
   * The plain text of a value: unsealed values as they are; sealed ones opened with their owner's key, or
   * `shredded` (default SHREDDED) when that key no longer exists.
   */
  async open(value: string, shredded: string = SHREDDED): Promise<string> {
    if (!isSealed(value)) return value;
    const owner = sealedOwner(value);
    const key = owner === null ? null : await this.keyForRead(owner);
    return key === null ? shredded : openWithKey(value, key);
  }

  /**
   * A copy of `value` (a JSON-like tree: objects, arrays, strings) with every sealed string in it opened
   * (SHREDDED where the key is gone); what holds nothing sealed is returned as it is.
   */
  async openAll<T>(value: T): Promise<T> {
    if (typeof value === 'string') return (isSealed(value) ? await this.open(value) : value) as T;
    if (Array.isArray(value)) {
      const out = await Promise.all(value.map((v) => this.openAll(v)));
      return (out.every((v, i) => v === value[i]) ? value : out) as T;
    }
    if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
      const entries = Object.entries(value as Record<string, unknown>);
      const opened = await Promise.all(entries.map(([, v]) => this.openAll(v)));
      if (opened.every((v, i) => v === entries[i]![1])) return value;
      return Object.fromEntries(entries.map(([k], i) => [k, opened[i]])) as T;
    }
    return value;
  }

  /**
   * null when the value is sealed and its key is gone, or it no longer opens under its owner's key (the key
   * destroyed and made anew): the owner's deletion, for callers that must tell it apart. A key that cannot be
   * fetched (the key store unreachable) is not a deletion: that failure is thrown.
   */
  async openOrNull(value: string): Promise<string | null> {
    if (!isSealed(value)) return value;
    const owner = sealedOwner(value);
    const key = owner === null ? null : await this.keyForRead(owner);
    if (key === null) return null;
    try {
      return openWithKey(value, key);
    } catch {
      return null;
    }
  }

  async openBinary(value: Buffer): Promise<Buffer | null> {
    if (!isSealedBinary(value)) return value;
    const owner = binaryOwner(value).owner.toString('utf8');
    const key = await this.keyForRead(owner);
    return key === null ? null : openBinaryWithKey(value, key);
  }

  /** The user's key (null: none, or destroyed): what identity hands to the other services (GetPersonalDataKeys). */
  async key(userId: string): Promise<Buffer | null> {
    return this.keyForRead(userId);
  }

  /** Drops the cached key of a deleted user (the key store has destroyed it). */
  forget(userId: string): void {
    this.cache.delete(userId);
  }

  /** On identity's events: UserDeleted drops that user's cached key (identity destroyed it); others change nothing. */
  forgetIfDeleted(event: { type: string; data?: unknown }): void {
    const userId = readIdentityEvent(event, ['UserDeleted'])?.data.userId;
    if (userId) this.forget(userId);
  }

  /** Destroys the user's key in the key store and here. */
  async shred(userId: string): Promise<void> {
    this.cache.delete(userId);
    await this.keys.destroy(userId);
  }

  private remember(userId: string, key: Buffer): Buffer {
    this.cache.delete(userId);
    if (this.cache.size >= this.maxCachedKeys) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(userId, { key, until: this.now() + this.keyTtlMs });
    return key;
  }

  private cached(userId: string): Buffer | undefined {
    const entry = this.cache.get(userId);
    if (!entry) return undefined;
    if (entry.until > this.now()) return entry.key;
    this.cache.delete(userId);
    return undefined;
  }

  private async keyForWrite(userId: string): Promise<Buffer> {
    return this.cached(userId) ?? this.remember(userId, await this.keys.findOrCreate(userId));
  }

  private async keyForRead(userId: string): Promise<Buffer | null> {
    const cached = this.cached(userId);
    if (cached) return cached;
    const key = await this.keys.find(userId);
    return key === null ? null : this.remember(userId, key);
  }
}

/** Keys in memory: for tests and for a process that holds nothing worth keeping. */
export class MemoryPersonalDataKeys implements PersonalDataKeys {
  private readonly keys = new Map<string, Buffer>();
  /** The ids of users whose key was destroyed (the tombstones): never given a key again. */
  private readonly destroyed = new Set<string>();

  async find(userId: string): Promise<Buffer | null> {
    return this.keys.get(userId) ?? null;
  }

  async findOrCreate(userId: string): Promise<Buffer> {
    if (this.destroyed.has(userId)) throw new UserKeyDestroyedError(userId);
    let key = this.keys.get(userId);
    if (!key) {
      key = cryptoRandom(32);
      this.keys.set(userId, key);
    }
    return key;
  }

  async destroy(userId: string): Promise<void> {
    this.destroyed.add(userId);
    this.keys.get(userId)?.fill(0);
    this.keys.delete(userId);
  }
}

let processPersonalData: PersonalData | undefined;

/**
 * The `PersonalData` a service's `start(deps)` uses: `deps.personalData` when its caller gave one (the
 * standalone: identity's vault shared in-process; a service run as its own program: identity over gRPC,
 * personalData.remote.ts), else ONE in-memory instance shared by everything in this process (tests that
 * start several services side by side without passing one still open each other's values).
 */
export function personalDataOf(deps: { personalData?: PersonalData }): PersonalData {
  return deps.personalData ?? (processPersonalData ??= new PersonalData(new MemoryPersonalDataKeys()));
}

/** The shared secret services send to identity's GetPersonalDataKeys (metadata `x-service-token`). */
export const SERVICE_TOKEN_METADATA = 'x-service-token';
export { DEV_INTERNAL_SERVICE_TOKEN };

/** INTERNAL_SERVICE_TOKEN from env, its development default outside production, else undefined. */
export function internalServiceToken(
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  const token = commonEnvValue(env, 'INTERNAL_SERVICE_TOKEN')?.trim();
  if (token) return token;
  return commonEnvValue(env, 'NODE_ENV') === 'production' ? undefined : DEV_INTERNAL_SERVICE_TOKEN;
}

/**
 * gRPC handlers whose answers leave with every sealed value in them opened (the stores and events keep them
 * sealed; what a service answers is for the caller to read).
 */
export function openingAnswers<H extends Record<string, (request: never) => unknown>>(
  personalData: PersonalData,
  handlers: H,
): H {
  return Object.fromEntries(
    Object.entries(handlers).map(([name, handle]) => [
      name,
      async (request: never) => personalData.openAll(await handle(request)),
    ]),
  ) as H;
}
