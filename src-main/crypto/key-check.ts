/**
 * Every instance of a team deployment must seal and open secrets with the
 * same master key (docs/deployment.md). The store keeps a check value
 * derived from the key (a keyed fingerprint of a constant: it reveals
 * nothing of the key); an instance whose key gives another value refuses to
 * start rather than fail on the first secret it cannot open, or — worse —
 * seal new secrets no other instance can read.
 */
import type { MerchantRepository } from '../repositories/merchant-repository';
import type { SettingsRepository } from '../repositories/settings-repository';
import type { Store } from '../store/store';
import type { SecretBox } from './secret-box';

export const KEY_CHECK_SETTING = 'master_key_check';
const CHECKED_TEXT = 'merchant-console master key check v1';

export class MasterKeyMismatchError extends Error {
  constructor(location: string) {
    super(
      `the master key does not match the one the secrets in ${location} were sealed with: ` +
        'give every instance the same key (--master-key-file, or MERCHANT_CONSOLE_MASTER_KEY; docs/deployment.md)',
    );
    this.name = 'MasterKeyMismatchError';
  }
}

export async function verifyMasterKey(
  store: Store,
  secretBox: SecretBox,
  repos: { settings: SettingsRepository; merchants: MerchantRepository },
): Promise<void> {
  const expected = secretBox.fingerprint(CHECKED_TEXT);
  const stored = await store.read((tx) => repos.settings.get<string>(tx, KEY_CHECK_SETTING));
  if (stored !== undefined) {
    if (stored !== expected) throw new MasterKeyMismatchError(store.location);
    return;
  }
  // A store from before the check: the key must open what is sealed there already.
  const sealed = await store.read(async (tx) => (await repos.merchants.list(tx))[0]?.api_secret_enc);
  if (sealed !== undefined) {
    try {
      secretBox.open(sealed);
    } catch {
      throw new MasterKeyMismatchError(store.location);
    }
  }
  await store.write(async (tx) => {
    if (await repos.settings.setIfAbsent(tx, KEY_CHECK_SETTING, expected)) return;
    // Another instance wrote it first.
    if ((await repos.settings.get<string>(tx, KEY_CHECK_SETTING)) !== expected) throw new MasterKeyMismatchError(store.location);
  });
}
