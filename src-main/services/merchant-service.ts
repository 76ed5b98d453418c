import { randomBytes } from 'node:crypto';
import { AppError, ErrorCode } from '../../src-shared/errors';
import { DEFAULT_SIGN_TYPE } from '../../src-shared/signing';
import type { MerchantCreateInput, MerchantUpdateInput, MerchantView, MerchantWithSecretView } from '../../src-shared/schemas/operator';
import type { SecretBox } from '../crypto/secret-box';
import type { MerchantRepository, MerchantRow } from '../repositories/merchant-repository';
import { callbackUrlProblem, shownCallbackUrl, type CallbackUrlPolicy } from '../callbacks/callback-url-policy';
import type { ReadTx, WriteTx } from '../store/store';
import type { Clock } from './context';

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
    callback_url: row.callback_url === null ? null : shownCallbackUrl(row.callback_url),
    enabled: row.enabled === 1,
    console_withdrawal_threshold: row.console_withdrawal_threshold,
    api_withdrawal_threshold: row.api_withdrawal_threshold,
    createtime: row.createtime,
    updatetime: row.updatetime,
  };
}

export interface MerchantServiceDeps {
  clock: Clock;
  secretBox: SecretBox;
  merchants: MerchantRepository;
  /** Where callbacks may go now (callbacks/callback-url-policy.ts). */
  callbackPolicy(tx: ReadTx): Promise<CallbackUrlPolicy>;
}

/** Merchants: every method runs in the caller's unit of work (tx). */
export function createMerchantService({ clock, secretBox, merchants, callbackPolicy }: MerchantServiceDeps) {
  const openedSecrets = new Map<string, string>();

  /** A callback_url being set must pass the callback URL policy (callbacks/callback-url-policy.ts). */
  async function checkCallbackUrl(tx: ReadTx, url: string | null | undefined): Promise<void> {
    const problem = url ? callbackUrlProblem(url, await callbackPolicy(tx)) : null;
    if (problem) throw new AppError(ErrorCode.VALIDATION, `callback_url: ${problem}`);
  }

  async function require(tx: ReadTx, id: number): Promise<MerchantRow> {
    const row = await merchants.findById(tx, id);
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, `merchant_id: merchant ${id} not found`);
    return row;
  }

  return {
    async create(tx: WriteTx, input: MerchantCreateInput): Promise<MerchantWithSecretView> {
      await checkCallbackUrl(tx, input.callback_url);
      const apiSecret = newApiSecret();
      const id = await merchants.insert(tx, {
        name: input.name,
        api_key: newApiKey(),
        api_secret_enc: secretBox.seal(apiSecret),
        sign_type: input.sign_type ?? DEFAULT_SIGN_TYPE,
        callback_url: input.callback_url ?? null,
        enabled: 1,
        createtime: clock.now(),
      });
      return { ...toMerchantView(await require(tx, id)), api_secret: apiSecret };
    },

    async list(tx: ReadTx): Promise<MerchantView[]> {
      return (await merchants.list(tx)).map(toMerchantView);
    },

    async get(tx: ReadTx, id: number): Promise<MerchantView> {
      return toMerchantView(await require(tx, id));
    },

    async update(tx: WriteTx, input: MerchantUpdateInput): Promise<MerchantView> {
      const row = await require(tx, input.id);
      await checkCallbackUrl(tx, input.callback_url);
      await merchants.updateProfile(
        tx,
        {
          id: row.id,
          name: input.name ?? row.name,
          sign_type: input.sign_type ?? row.sign_type,
          callback_url: input.callback_url === undefined ? row.callback_url : input.callback_url,
          enabled: input.enabled === undefined ? row.enabled : input.enabled ? 1 : 0,
        },
        clock.now(),
      );
      return toMerchantView(await require(tx, row.id));
    },

    /** Withdrawal thresholds (fen): what is unchanged may be omitted; api null: API withdrawals are never held. */
    async setLimits(tx: WriteTx, id: number, limits: { console?: number | undefined; api?: number | null | undefined }): Promise<MerchantView> {
      const row = await require(tx, id);
      await merchants.updateLimits(
        tx,
        id,
        limits.console ?? row.console_withdrawal_threshold,
        limits.api === undefined ? row.api_withdrawal_threshold : limits.api,
        clock.now(),
      );
      return toMerchantView(await require(tx, id));
    },

    /** A new secret replaces the old at once; the old one stops verifying. */
    async rotateSecret(tx: WriteTx, id: number): Promise<MerchantWithSecretView> {
      await require(tx, id);
      const apiSecret = newApiSecret();
      await merchants.updateSecret(tx, id, secretBox.seal(apiSecret), clock.now());
      return { ...toMerchantView(await require(tx, id)), api_secret: apiSecret };
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
    findByApiKey: (tx: ReadTx, apiKey: string) => merchants.findByApiKey(tx, apiKey),
  };
}
export type MerchantService = ReturnType<typeof createMerchantService>;
