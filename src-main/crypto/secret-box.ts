/**
 * Encryption at rest for secrets (merchant api_secret, channel config,
 * payee data): AES-256-GCM under a local master key. The master key lives
 * in the data dir as a 0600 file; the desktop shell can wrap it with the OS
 * keychain by supplying its own MasterKeyStore.
 */
import { createCipheriv, createDecipheriv, randomBytes, createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const VERSION_PREFIX = 'v1:';
const KEY_BYTES = 32;

export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
  /** Keyed fingerprint for equality lookups on encrypted values (no plaintext index). */
  fingerprint(plaintext: string): string;
}

export function createSecretBox(masterKey: Buffer): SecretBox {
  if (masterKey.length !== KEY_BYTES) throw new Error('master key must be 32 bytes');
  const encKey = createHmac('sha256', masterKey).update('merchant-console/enc').digest();
  const macKey = createHmac('sha256', masterKey).update('merchant-console/fingerprint').digest();
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encKey, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return VERSION_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    open(sealed) {
      if (!sealed.startsWith(VERSION_PREFIX)) throw new Error('unknown secret format');
      const raw = Buffer.from(sealed.slice(VERSION_PREFIX.length), 'base64');
      const decipher = createDecipheriv('aes-256-gcm', encKey, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
    fingerprint(plaintext) {
      return createHmac('sha256', macKey).update(plaintext, 'utf8').digest('hex');
    },
  };
}

/** Where the master key comes from. */
export interface MasterKeyStore {
  /** Returns the key, creating it on first use. */
  loadOrCreate(): Buffer;
}

export const MASTER_KEY_FILE = 'master.key';
/** The desktop's copy of the master key, sealed with the OS keychain (Electron safeStorage). */
export const WRAPPED_MASTER_KEY_FILE = 'master.key.safe';

export class MasterKeySealedError extends Error {
  constructor(readonly dataDir: string) {
    super(
      `the master key of data dir ${dataDir} is sealed in the OS keychain by the desktop app (${WRAPPED_MASTER_KEY_FILE}); ` +
        'only the desktop app can read it. Use the desktop app, or start it once with MERCHANT_CONSOLE_KEYCHAIN=off to move the key back to a 0600 file',
    );
    this.name = 'MasterKeySealedError';
  }
}

/** Makes a new or renamed entry in `dir` durable. Windows cannot open a folder for fsync (NTFS journals it itself). */
export function syncFolder(dir: string): void {
  if (process.platform === 'win32') return;
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes a new master key file, 0600, and never over an existing one ('wx':
 * another process may just have written its key): false when the file
 * exists. The file and its folder entry are on disk when this returns —
 * secrets sealed with the key commit durably, so the key must be too.
 */
export function writeNewKeyFile(file: string, key: Buffer): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    fs.writeFileSync(fd, key.toString('base64') + '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  syncFolder(path.dirname(path.resolve(file)));
  return true;
}

/** A master key in a file: read, or made when missing (`beforeCreate` may refuse that by throwing). */
function keyFileStore(file: string, notAKey: string, beforeCreate: () => void = () => {}): MasterKeyStore {
  const store: MasterKeyStore = {
    loadOrCreate() {
      try {
        const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
        if (key.length !== KEY_BYTES) throw new Error(notAKey);
        return key;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      beforeCreate();
      const key = randomBytes(KEY_BYTES);
      // Another process wrote one first: that one is the key.
      return writeNewKeyFile(file, key) ? key : store.loadOrCreate();
    },
  };
  return store;
}

/** The plain 0600 key file in the data dir (headless `serve`, CLI, tests). */
export function fileMasterKeyStore(dataDir: string): MasterKeyStore {
  const file = path.join(dataDir, MASTER_KEY_FILE);
  return keyFileStore(file, `${file} does not hold a 32-byte key`, () => {
    // A new key here would silently orphan every secret sealed under the desktop's key.
    if (fs.existsSync(path.join(dataDir, WRAPPED_MASTER_KEY_FILE))) throw new MasterKeySealedError(dataDir);
  });
}

/** An explicit key file (`--master-key-file`, team deployments): read, or created 0600 when missing. */
export function explicitFileMasterKeyStore(file: string): MasterKeyStore {
  return keyFileStore(file, `master key file ${file} does not hold a 32-byte key (base64)`);
}

/** A key given inline ($MERCHANT_CONSOLE_MASTER_KEY, base64 of 32 bytes). */
export function inlineMasterKeyStore(base64: string, source = 'MERCHANT_CONSOLE_MASTER_KEY'): MasterKeyStore {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== KEY_BYTES || key.toString('base64') !== base64.trim()) throw new Error(`${source} must be 32 bytes in base64 (44 characters)`);
  return { loadOrCreate: () => Buffer.from(key) };
}

/** A new master key in the form the key file and $MERCHANT_CONSOLE_MASTER_KEY hold. */
export function newMasterKeyText(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}
