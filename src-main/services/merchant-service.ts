import { randomBytes } from 'node:crypto';
import { AppError, ErrorCode } from '../../src-shared/errors';
import { DEFAULT_SIGN_TYPE } from '../../src-shared/signing';
import type { MerchantCreateInput, MerchantUpdateInput, MerchantView, MerchantWithSecretView } from '../../src-shared/schemas/operator';
import type { MerchantRow } from '../repositories/merchant-repository';
import type { ServiceContext } from './context';

export function newApiKey(): string {
  return 'mk_' + randomBytes(12).toString('hex');
}

/** 32 random bytes, base64url: shown once, stored only encrypted. */
export function newApiSecret(): string {
  return 'sk_' + randomBytes(32).toString('base64url');
}

export function toMerchantView(row: MerchantRow): MerchantView {
  return {
    id: row.id,
    name: row.name,
    api_key: row.api_key,
    sign_type: row.sign_type,
    callback_url: row.callback_url,
    enabled: row.enabled === 1,
    createtime: row.createtime,
    updatetime: row.updatetime,
  };
}

export function createMerchantService(ctx: ServiceContext) {
  const { repos, secretBox, clock, db } = ctx;
  const openedSecrets = new Map<string, string>();

  function require(id: number): MerchantRow {
    const row = repos.merchants.findById(id);
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, `merchant_id: merchant ${id} not found`);
    return row;
  }

  return {
    create(input: MerchantCreateInput): MerchantWithSecretView {
      const apiSecret = newApiSecret();
      const id = db.transaction(() =>
        repos.merchants.insert({
          name: input.name,
          api_key: newApiKey(),
          api_secret_enc: secretBox.seal(apiSecret),
          sign_type: input.sign_type ?? DEFAULT_SIGN_TYPE,
          callback_url: input.callback_url ?? null,
          enabled: 1,
          createtime: clock.now(),
        }),
      )();
      return { ...toMerchantView(require(id)), api_secret: apiSecret };
    },

    list(): MerchantView[] {
      return repos.merchants.list().map(toMerchantView);
    },

    get(id: number): MerchantView {
      return toMerchantView(require(id));
    },

    update(input: MerchantUpdateInput): MerchantView {
      const row = require(input.id);
      repos.merchants.updateProfile(
        {
          id: row.id,
          name: input.name ?? row.name,
          sign_type: input.sign_type ?? row.sign_type,
          callback_url: input.callback_url === undefined ? row.callback_url : input.callback_url,
          enabled: input.enabled === undefined ? row.enabled : input.enabled ? 1 : 0,
        },
        clock.now(),
      );
      return toMerchantView(require(row.id));
    },

    /** A new secret replaces the old at once; the old one stops verifying. */
    rotateSecret(id: number): MerchantWithSecretView {
      require(id);
      const apiSecret = newApiSecret();
      repos.merchants.updateSecret(id, secretBox.seal(apiSecret), clock.now());
      return { ...toMerchantView(require(id)), api_secret: apiSecret };
    },

    /**
     * For signing outgoing callbacks and verifying requests; never returned to
     * a client. Decrypted once per sealed value (AES-GCM on every request was
     * a tenth of a signed request's time): a rotation seals a new value, so
     * the cache can never hand out a replaced secret.
     */
    secretOf(row: MerchantRow): string {
      let plain = openedSecrets.get(row.api_secret_enc);
      if (plain === undefined) {
        plain = secretBox.open(row.api_secret_enc);
        if (openedSecrets.size >= 10_000) openedSecrets.clear();
        openedSecrets.set(row.api_secret_enc, plain);
      }
      return plain;
    },

    require,
  };
}
export type MerchantService = ReturnType<typeof createMerchantService>;
