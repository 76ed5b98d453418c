/**
 * The desktop's master key: sealed with the OS keychain through Electron
 * safeStorage (macOS Keychain, Windows DPAPI, libsecret/KWallet on Linux)
 * in `master.key.safe`, instead of the plain 0600 `master.key` that `serve`
 * uses.
 *
 * - First start with a usable keychain: an existing plain master.key is
 *   sealed, the sealed copy verified, then the plain file deleted
 *   (migration); with no key yet, a new one is made and sealed.
 * - No usable keychain (Linux without a secret service falls back to
 *   safeStorage's "basic_text" backend, a hard-coded password; or
 *   encryption is simply unavailable): the desktop keeps the plain 0600 file,
 *   exactly like `serve`, and says so (protection 'file').
 * - A sealed key is never replaced: if the keychain cannot open it, start-up
 *   stops with a clear message instead of orphaning every stored secret.
 * - MERCHANT_CONSOLE_KEYCHAIN=off moves a sealed key back to the plain file
 *   (needed to run `serve` on the desktop's data dir).
 *
 * safeStorage's async API resolves before the service opens; the returned
 * MasterKeyStore then hands the key over synchronously.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SafeStorage } from 'electron';
import { fileMasterKeyStore, MASTER_KEY_FILE, syncFolder, WRAPPED_MASTER_KEY_FILE, type MasterKeyStore } from '../crypto/secret-box';

const KEY_BYTES = 32;

export type SafeStorageApi = Pick<SafeStorage, 'isAsyncEncryptionAvailable' | 'encryptStringAsync' | 'decryptStringAsync'> &
  Partial<Pick<SafeStorage, 'getSelectedStorageBackend'>>;

export type KeyProtection = 'os-keychain' | 'file';

export interface DesktopMasterKey {
  store: MasterKeyStore;
  protection: KeyProtection;
  /** One line for the log: what happened and why (never the key). */
  note: string;
}

export interface DesktopMasterKeyOptions {
  dataDir: string;
  safeStorage: SafeStorageApi;
  platform?: NodeJS.Platform;
  /** 'off' keeps (or moves) the key in the plain 0600 file. */
  keychain?: 'on' | 'off';
}

export const KEYCHAIN_ENV = 'MERCHANT_CONSOLE_KEYCHAIN';

export class SealedKeyUnavailableError extends Error {
  /** `keychain`: the keychain is not available now; `file`: it is, but cannot decrypt what the file holds. */
  constructor(file: string, reason: string, cause: 'keychain' | 'file' = 'keychain') {
    super(
      (cause === 'keychain'
        ? `the master key in ${file} is sealed with the OS keychain, which cannot open it now (${reason}). ` +
          'Unlock or start the keychain (on Linux: the desktop keyring / secret service) and start merchant-console again. '
        : `the master key in ${file} is sealed with the OS keychain, which cannot open it now (${reason}): the keychain ` +
          'works, so the file is damaged or was sealed by another user or machine. Restore it (or the whole data dir) ' +
          'from a backup of this user on this machine. ') + 'The key is not replaced: a new one would make every stored secret unreadable.',
    );
    this.name = 'SealedKeyUnavailableError';
  }
}

function keyFromBase64(text: string, source: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`${source} does not hold a 32-byte key`);
  return key;
}

/**
 * Writes a secret file so that a crash or power cut leaves either the old
 * state or the complete new file, and the new file is on disk when this
 * returns: callers then delete the key's other copy, or let the service seal
 * secrets with it (the database commits durably; the key must too).
 */
function writeSecretFile(file: string, content: Buffer | string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    fs.writeFileSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  syncFolder(path.dirname(file));
}

/** Whether safeStorage really protects data here (Linux's basic_text backend does not). */
async function keychainUsable(safeStorage: SafeStorageApi, platform: NodeJS.Platform): Promise<{ usable: boolean; why: string }> {
  let available = false;
  try {
    available = await safeStorage.isAsyncEncryptionAvailable();
  } catch (err) {
    return { usable: false, why: `safeStorage failed: ${(err as Error).message}` };
  }
  if (!available) return { usable: false, why: 'OS encryption is not available' };
  if (platform === 'linux' && typeof safeStorage.getSelectedStorageBackend === 'function') {
    const backend = safeStorage.getSelectedStorageBackend();
    if (backend === 'basic_text') return { usable: false, why: 'no secret service found (safeStorage backend basic_text, a hard-coded password)' };
  }
  return { usable: true, why: 'OS keychain available' };
}

async function seal(safeStorage: SafeStorageApi, key: Buffer): Promise<Buffer> {
  return safeStorage.encryptStringAsync(key.toString('base64'));
}

async function unseal(safeStorage: SafeStorageApi, file: string): Promise<{ key: Buffer; shouldReEncrypt: boolean }> {
  const sealed = fs.readFileSync(file);
  let result: { shouldReEncrypt: boolean; result: string };
  try {
    result = await safeStorage.decryptStringAsync(sealed);
  } catch (err) {
    throw new SealedKeyUnavailableError(file, (err as Error).message, 'file');
  }
  return { key: keyFromBase64(result.result, file), shouldReEncrypt: result.shouldReEncrypt };
}

const fixed = (key: Buffer): MasterKeyStore => ({ loadOrCreate: () => Buffer.from(key) });

export async function openDesktopMasterKey(options: DesktopMasterKeyOptions): Promise<DesktopMasterKey> {
  const platform = options.platform ?? process.platform;
  const { safeStorage, dataDir } = options;
  const wrappedFile = path.join(dataDir, WRAPPED_MASTER_KEY_FILE);
  const plainFile = path.join(dataDir, MASTER_KEY_FILE);
  const keychain = await keychainUsable(safeStorage, platform);

  if (fs.existsSync(wrappedFile)) {
    if (!keychain.usable) throw new SealedKeyUnavailableError(wrappedFile, keychain.why);
    const { key, shouldReEncrypt } = await unseal(safeStorage, wrappedFile);

    if (options.keychain === 'off') {
      // Move back to the plain file; the sealed copy goes only once the plain one is on disk and reads back equal.
      if (fs.existsSync(plainFile) && !fileMasterKeyStore(dataDir).loadOrCreate().equals(key)) {
        throw new Error(`${plainFile} already holds a different key; move it away before turning the keychain off`);
      }
      writeSecretFile(plainFile, key.toString('base64') + '\n');
      if (!fileMasterKeyStore(dataDir).loadOrCreate().equals(key)) throw new Error(`${plainFile} did not read back as the key just written`);
      fs.rmSync(wrappedFile);
      return { store: fixed(key), protection: 'file', note: `master key moved out of the OS keychain to ${MASTER_KEY_FILE} (${KEYCHAIN_ENV}=off)` };
    }

    if (shouldReEncrypt) writeSecretFile(wrappedFile, await seal(safeStorage, key));
    let note = 'master key unsealed from the OS keychain';
    if (fs.existsSync(plainFile)) {
      // Left over from an interrupted migration: remove it only when it is the same key.
      let same = false;
      try {
        same = keyFromBase64(fs.readFileSync(plainFile, 'utf8'), plainFile).equals(key);
      } catch {
        same = false;
      }
      if (same) {
        fs.rmSync(plainFile);
        note += `; removed the leftover plain ${MASTER_KEY_FILE}`;
      } else {
        note += `; WARNING: ${MASTER_KEY_FILE} holds a different key and was left untouched (the sealed key is the one in use)`;
      }
    }
    return { store: fixed(key), protection: 'os-keychain', note };
  }

  if (options.keychain === 'off' || !keychain.usable) {
    const why = options.keychain === 'off' ? `${KEYCHAIN_ENV}=off` : keychain.why;
    const key = fileMasterKeyStore(dataDir).loadOrCreate();
    return { store: fixed(key), protection: 'file', note: `master key kept in the 0600 file ${MASTER_KEY_FILE}, not the OS keychain: ${why}` };
  }

  const migrating = fs.existsSync(plainFile);
  const key = migrating ? fileMasterKeyStore(dataDir).loadOrCreate() : randomBytes(KEY_BYTES);
  writeSecretFile(wrappedFile, await seal(safeStorage, key));
  // Only trust the sealed copy once it opens to the same key.
  const check = await unseal(safeStorage, wrappedFile);
  if (!check.key.equals(key)) {
    fs.rmSync(wrappedFile, { force: true });
    throw new Error('the OS keychain returned a different key than the one sealed; kept the plain key file');
  }
  if (migrating) fs.rmSync(plainFile);
  return {
    store: fixed(key),
    protection: 'os-keychain',
    note: migrating ? `master key moved from ${MASTER_KEY_FILE} into the OS keychain (${WRAPPED_MASTER_KEY_FILE})` : 'new master key sealed with the OS keychain',
  };
}
