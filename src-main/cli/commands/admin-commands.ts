/** merchant, channel and payment-method administration. */
import { parseOrThrow } from '../../../src-shared/validation/parse';
import { CLI_ACTOR } from '../../services/audit-service';
import { z } from 'zod';
import { yuanThreshold } from '../../../src-shared/schemas/fields';
import { formatFen } from '../../../src-shared/money';
import {
  channelCreateInput,
  channelLinkInput,
  channelUpdateInput,
  merchantCreateInput,
  merchantUpdateInput,
  paymentMethodAddInput,
  type ChannelAdminView,
  type ChannelLinkView,
  type MerchantView,
  type MerchantWithSecretView,
  type PaymentMethodView,
} from '../../../src-shared/schemas/operator';
import {
  idArgument,
  intOption,
  requiredOption,
  stringOption,
  UsageError,
  withService,
  defineCommand,
  type CommandArgs,
  type CommandDef,
} from '../command';

const MERCHANT_LIMIT_OPTIONS = {
  'console-threshold': { type: 'string' },
  'api-threshold': { type: 'string' },
} as const;

/** The thresholds as the options give them (yuan; api "none": API withdrawals are never held). */
const merchantLimitsInput = z.strictObject({ console: yuanThreshold.optional(), api: yuanThreshold.nullable().optional() });

function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((r) => columns.map((c) => (r[c] === null || r[c] === undefined ? '' : String(r[c]))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns), ...cells.map(line)].join('\n');
}

function merchantWithSecretText(m: MerchantWithSecretView): string {
  return [
    `merchant ${m.id}: ${m.name}`,
    `  api_key:    ${m.api_key}`,
    `  api_secret: ${m.api_secret}   (shown only now; store it safely)`,
    `  sign_type:  ${m.sign_type}`,
    `  callback:   ${m.callback_url ?? '(none)'}`,
  ].join('\n');
}

export function optionalBoolean(args: CommandArgs, on: string, off: string): boolean | undefined {
  if (args.values[on] === true && args.values[off] === true) throw new UsageError(`--${on} and --${off} exclude each other`);
  if (args.values[on] === true) return true;
  if (args.values[off] === true) return false;
  return undefined;
}

/** An update with none of its options would report "updated" having changed nothing: refuse it, naming them. */
function requireSomeChange(args: CommandArgs, options: Record<string, unknown>): void {
  const names = Object.keys(options);
  if (!names.some((name) => args.values[name] !== undefined)) {
    throw new UsageError(`nothing to change: give at least one of ${names.map((n) => `--${n}`).join(', ')}`);
  }
}

function feeOptions(args: CommandArgs) {
  const out: Record<string, unknown> = {};
  const serviceRate = stringOption(args, 'service-rate');
  const passageRate = stringOption(args, 'passage-rate');
  const depositRate = intOption(args, 'deposit-rate');
  const baseRate = intOption(args, 'base-rate');
  if (serviceRate !== undefined) out.service_rate = serviceRate;
  if (passageRate !== undefined) out.passage_rate = passageRate;
  if (depositRate !== undefined) out.deposit_rate = depositRate;
  if (baseRate !== undefined) out.base_rate = baseRate;
  return out;
}

/** Channel timing in seconds (pay timeout of buy orders, settle delay, payout delay). */
function timingOptions(args: CommandArgs) {
  const out: Record<string, unknown> = {};
  const payTimeout = intOption(args, 'pay-timeout');
  const settleDelay = intOption(args, 'settle-delay');
  const payoutDelay = intOption(args, 'payout-delay');
  if (payTimeout !== undefined) out.pay_timeout = payTimeout;
  if (settleDelay !== undefined) out.settle_delay = settleDelay;
  if (payoutDelay !== undefined) out.payout_delay = payoutDelay;
  return out;
}

const TIMING_OPTIONS = {
  'pay-timeout': { type: 'string' },
  'settle-delay': { type: 'string' },
  'payout-delay': { type: 'string' },
} as const;

const FEE_OPTIONS = {
  'service-rate': { type: 'string' },
  'passage-rate': { type: 'string' },
  'deposit-rate': { type: 'string' },
  'base-rate': { type: 'string' },
} as const;

const MERCHANT_UPDATE_OPTIONS = {
  name: { type: 'string' },
  'callback-url': { type: 'string' },
  'no-callback': { type: 'boolean' },
  'sign-type': { type: 'string' },
  enable: { type: 'boolean' },
  disable: { type: 'boolean' },
} as const;

/** What `channel create` and `channel update` both set. */
const CHANNEL_SETTING_OPTIONS = {
  name: { type: 'string' },
  'pay-methods': { type: 'string' },
  ...FEE_OPTIONS,
  ...TIMING_OPTIONS,
  'min-amount': { type: 'string' },
  'max-amount': { type: 'string' },
  'config-json': { type: 'string' },
} as const;

const CHANNEL_UPDATE_OPTIONS = {
  ...CHANNEL_SETTING_OPTIONS,
  enable: { type: 'boolean' },
  disable: { type: 'boolean' },
} as const;

function parseConfigJson(args: CommandArgs): Record<string, unknown> | undefined {
  const text = stringOption(args, 'config-json');
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new UsageError('--config-json must be a JSON object of strings');
  }
}

const CHANNEL_COLUMNS = ['id', 'category', 'name', 'pay_method', 'service_rate', 'passage_rate', 'deposit_rate', 'base_rate', 'min_amount', 'max_amount', 'enabled'];

export const adminCommands: CommandDef[] = [
  defineCommand({
    name: 'merchant create',
    summary: 'create a merchant; prints its api_key and api_secret (shown once)',
    usage: 'merchant create --name N [--callback-url U] [--sign-type hmac-sha256|md5]',
    options: { name: { type: 'string' }, 'callback-url': { type: 'string' }, 'sign-type': { type: 'string' } },
    positionals: 0,
    run: (args) =>
      withService(args, (s) => {
        const input = parseOrThrow(
          merchantCreateInput,
          { name: requiredOption(args, 'name'), callback_url: stringOption(args, 'callback-url'), sign_type: stringOption(args, 'sign-type') },
          'options',
        );
        return s.store.write((tx) => s.services.adminActions.createMerchant(tx, CLI_ACTOR, input));
      }),
    human: merchantWithSecretText,
  }),
  defineCommand({
    name: 'merchant list',
    summary: 'list merchants (never their secrets)',
    usage: 'merchant list',
    positionals: 0,
    run: (args) => withService(args, (s) => s.store.read((tx) => s.services.merchants.list(tx))),
    human: (rows: MerchantView[]) =>
      table(rows as unknown as Record<string, unknown>[], ['id', 'name', 'api_key', 'sign_type', 'callback_url', 'enabled']),
  }),
  defineCommand({
    name: 'merchant update',
    summary: "change a merchant's name, callback URL, sign type or enabled flag",
    usage: 'merchant update ID [--name N] [--callback-url U|--no-callback] [--sign-type T] [--enable|--disable]',
    options: MERCHANT_UPDATE_OPTIONS,
    positionals: 1,
    run: (args) =>
      withService(args, (s) => {
        requireSomeChange(args, MERCHANT_UPDATE_OPTIONS);
        if (args.values['no-callback'] === true && args.values['callback-url'] !== undefined) {
          throw new UsageError('--callback-url and --no-callback exclude each other');
        }
        const callbackUrl = args.values['no-callback'] === true ? null : stringOption(args, 'callback-url');
        const input = parseOrThrow(
          merchantUpdateInput,
          {
            id: idArgument(args.positionals[0], 'ID'),
            name: stringOption(args, 'name'),
            callback_url: callbackUrl,
            sign_type: stringOption(args, 'sign-type'),
            enabled: optionalBoolean(args, 'enable', 'disable'),
          },
          'options',
        );
        return s.store.write((tx) => s.services.adminActions.updateMerchant(tx, CLI_ACTOR, input));
      }),
    human: (m: MerchantView) => `merchant ${m.id} updated`,
  }),
  defineCommand({
    name: 'merchant limits',
    summary: "a merchant's withdrawal thresholds: above them a withdrawal waits for a second person's approval (docs/accounts.md)",
    usage: 'merchant limits ID [--console-threshold YUAN] [--api-threshold YUAN|none]',
    options: MERCHANT_LIMIT_OPTIONS,
    positionals: 1,
    run: (args) =>
      withService(args, (s) => {
        requireSomeChange(args, MERCHANT_LIMIT_OPTIONS);
        const api = stringOption(args, 'api-threshold');
        const limits = parseOrThrow(
          merchantLimitsInput,
          { console: stringOption(args, 'console-threshold'), api: api === 'none' ? null : api },
          'options',
        );
        return s.store.write((tx) => s.services.adminActions.setMerchantLimits(tx, CLI_ACTOR, idArgument(args.positionals[0], 'ID'), limits));
      }),
    human: (m: MerchantView) =>
      `merchant ${m.id}: console withdrawals above ${formatFen(m.console_withdrawal_threshold)} CNY and API withdrawals ${
        m.api_withdrawal_threshold === null ? 'never' : `above ${formatFen(m.api_withdrawal_threshold)} CNY`
      } wait for approval`,
  }),
  defineCommand({
    name: 'merchant rotate-secret',
    summary: 'replace the api_secret of a merchant; the old one stops working at once',
    usage: 'merchant rotate-secret ID',
    positionals: 1,
    run: (args) => withService(args, (s) => s.store.write((tx) => s.services.adminActions.rotateMerchantSecret(tx, CLI_ACTOR, idArgument(args.positionals[0], 'ID')))),
    human: merchantWithSecretText,
  }),
  defineCommand({
    name: 'channel create',
    summary: 'create a payment channel',
    usage:
      'channel create --category alpha|beta|gamma --name N --pay-methods wxpay,alipay,bank [--service-rate R] [--passage-rate R] ' +
      '[--deposit-rate BP] [--base-rate BP] [--min-amount YUAN] [--max-amount YUAN] [--pay-timeout S] [--settle-delay S] [--payout-delay S] ' +
      '[--config-json JSON] [--disabled]',
    options: {
      category: { type: 'string' },
      ...CHANNEL_SETTING_OPTIONS,
      disabled: { type: 'boolean' },
    },
    positionals: 0,
    run: (args) =>
      withService(args, (s) => {
        const input = parseOrThrow(
          channelCreateInput,
          {
            category: requiredOption(args, 'category'),
            name: requiredOption(args, 'name'),
            pay_methods: requiredOption(args, 'pay-methods').split(',').map((m) => m.trim()),
            ...feeOptions(args),
            ...timingOptions(args),
            min_amount: stringOption(args, 'min-amount'),
            max_amount: stringOption(args, 'max-amount'),
            config: parseConfigJson(args),
            enabled: args.values.disabled === true ? false : undefined,
          },
          'options',
        );
        return s.store.write((tx) => s.services.adminActions.createChannel(tx, CLI_ACTOR, input));
      }),
    human: (c: ChannelAdminView) => `channel ${c.id} created: ${c.category} "${c.name}" (${c.pay_method})`,
  }),
  defineCommand({
    name: 'channel update',
    summary: 'change a channel (config, when given, replaces the whole config)',
    usage:
      'channel update ID [--name N] [--pay-methods LIST] [--service-rate R] [--passage-rate R] [--deposit-rate BP] [--base-rate BP] ' +
      '[--min-amount YUAN] [--max-amount YUAN] [--pay-timeout S] [--settle-delay S] [--payout-delay S] [--config-json JSON] [--enable|--disable]',
    options: CHANNEL_UPDATE_OPTIONS,
    positionals: 1,
    run: (args) =>
      withService(args, (s) => {
        requireSomeChange(args, CHANNEL_UPDATE_OPTIONS);
        const payMethods = stringOption(args, 'pay-methods');
        const input = parseOrThrow(
          channelUpdateInput,
          {
            id: idArgument(args.positionals[0], 'ID'),
            name: stringOption(args, 'name'),
            pay_methods: payMethods?.split(',').map((m) => m.trim()),
            ...feeOptions(args),
            ...timingOptions(args),
            min_amount: stringOption(args, 'min-amount'),
            max_amount: stringOption(args, 'max-amount'),
            config: parseConfigJson(args),
            enabled: optionalBoolean(args, 'enable', 'disable'),
          },
          'options',
        );
        return s.store.write((tx) => s.services.adminActions.updateChannel(tx, CLI_ACTOR, input));
      }),
    human: (c: ChannelAdminView) => `channel ${c.id} updated`,
  }),
  defineCommand({
    name: 'channel list',
    summary: 'list channels (sensitive config masked)',
    usage: 'channel list',
    positionals: 0,
    run: (args) => withService(args, (s) => s.store.read((tx) => s.services.channels.list(tx))),
    human: (rows: ChannelAdminView[]) => table(rows as unknown as Record<string, unknown>[], CHANNEL_COLUMNS),
  }),
  defineCommand({
    name: 'channel link',
    summary: "link (or re-link) a channel to a merchant; the link's fee overrides become exactly the ones given (none: the channel's own)",
    usage: 'channel link --merchant ID --channel ID [--service-rate R] [--passage-rate R] [--deposit-rate BP] [--base-rate BP]',
    options: { merchant: { type: 'string' }, channel: { type: 'string' }, ...FEE_OPTIONS },
    positionals: 0,
    run: (args) =>
      withService(args, (s) => {
        const input = parseOrThrow(
          channelLinkInput,
          {
            merchant_id: idArgument(requiredOption(args, 'merchant'), '--merchant'),
            channel_id: idArgument(requiredOption(args, 'channel'), '--channel'),
            ...feeOptions(args),
          },
          'options',
        );
        return s.store.write((tx) => s.services.adminActions.linkChannel(tx, CLI_ACTOR, input));
      }),
    human: (l: ChannelLinkView) =>
      `channel ${l.channel_id} linked to merchant ${l.merchant_id}; effective fees: service_rate ${l.effective.service_rate}, ` +
      `passage_rate ${l.effective.passage_rate}, deposit_rate ${l.effective.deposit_rate} bp, base_rate ${l.effective.base_rate} bp`,
  }),
  defineCommand({
    name: 'channel unlink',
    summary: 'remove the link between a channel and a merchant',
    usage: 'channel unlink --merchant ID --channel ID',
    options: { merchant: { type: 'string' }, channel: { type: 'string' } },
    positionals: 0,
    run: (args) =>
      withService(args, (s) => {
        const merchantId = idArgument(requiredOption(args, 'merchant'), '--merchant');
        const channelId = idArgument(requiredOption(args, 'channel'), '--channel');
        return s.store.write(async (tx) => {
          await s.services.adminActions.unlinkChannel(tx, CLI_ACTOR, merchantId, channelId);
          return { merchant_id: merchantId, channel_id: channelId, unlinked: true };
        });
      }),
    human: (r: { merchant_id: number; channel_id: number }) => `channel ${r.channel_id} unlinked from merchant ${r.merchant_id}`,
  }),
  defineCommand({
    name: 'payment-method add',
    summary: "register a merchant's settlement account (payee of beta/gamma sell orders)",
    usage: 'payment-method add --merchant ID --kind wxpay|alipay|bank --card-number N --real-name NAME [--bank B] [--sub-bank S]',
    options: {
      merchant: { type: 'string' },
      kind: { type: 'string' },
      'card-number': { type: 'string' },
      'real-name': { type: 'string' },
      bank: { type: 'string' },
      'sub-bank': { type: 'string' },
    },
    positionals: 0,
    run: (args) =>
      withService(args, (s) => {
        const input = parseOrThrow(
            paymentMethodAddInput,
            {
              merchant_id: idArgument(requiredOption(args, 'merchant'), '--merchant'),
              kind: requiredOption(args, 'kind'),
              card_number: requiredOption(args, 'card-number'),
              real_name: requiredOption(args, 'real-name'),
              bank: stringOption(args, 'bank'),
              sub_bank: stringOption(args, 'sub-bank'),
            },
            'options',
          );
        return s.store.write((tx) => s.services.adminActions.addPaymentMethod(tx, CLI_ACTOR, input));
      }),
    human: (p: PaymentMethodView) => `payment method ${p.id} added: ${p.kind} ${p.card_number} (${p.real_name})`,
  }),
  defineCommand({
    name: 'payment-method list',
    summary: "list a merchant's payee accounts (card numbers masked)",
    usage: 'payment-method list --merchant ID',
    options: { merchant: { type: 'string' } },
    positionals: 0,
    run: (args) =>
      withService(args, (s) => {
        const merchantId = idArgument(requiredOption(args, 'merchant'), '--merchant');
        return s.store.read((tx) => s.services.paymentMethods.listOfMerchant(tx, merchantId));
      }),
    human: (rows: PaymentMethodView[]) =>
      table(rows as unknown as Record<string, unknown>[], ['id', 'kind', 'source', 'bank', 'sub_bank', 'card_number', 'real_name', 'enabled']),
  }),
];
