/**
 * docs/deployment.md states figures and messages the code decides: the
 * `db status` example (its shape and the schema version), the connection
 * pool, the claim times, the body limit nginx mirrors, the master-key
 * mismatch message, the environment variables and the commands it names.
 * When the code changes, this fails until the page says the same. (Its
 * nginx block is run by test/src-main/store/postgres/nginx-proxy.test.ts.)
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../src-shared/constants';
import { CALLBACK_CLAIM_SECONDS } from '../../src-main/background/callback-dispatcher';
import { JOB_CLAIM_SECONDS } from '../../src-main/background/order-worker';
import { CLAIM_SECONDS_ENV, MASTER_KEY_ENV, MASTER_KEY_FILE_ENV, MAX_POOL_SIZE, POOL_SIZE_ENV } from '../../src-main/cli/command';
import { COMMANDS } from '../../src-main/cli/main';
import { MasterKeyMismatchError } from '../../src-main/crypto/key-check';
import { KEYCHAIN_ENV } from '../../src-main/desktop/safe-storage-key-store';
import { LATEST_SCHEMA_VERSION } from '../../src-main/store/migrations/index';
import { DATABASE_URL_ENV } from '../../src-main/store/open-store';
import { DEFAULT_POOL_SIZE } from '../../src-main/store/postgres/postgres-store';
import { NEW_POSTGRES_GENERATION } from '../../src-main/store/migrations/0011-row-generation-postgres';
import { cli } from '../support/cli-harness';
import { newBuy, newSell, transition } from '../support/money';
import { allowPrivateCallbacks, seedMerchant, testService } from '../support/service-harness';
import { tempDir } from '../support/temp-dir';

const doc = fs.readFileSync('docs/deployment.md', 'utf8');
/** The prose as one line: sentences may wrap anywhere. */
const prose = doc.replace(/\s+/g, ' ');

/** Numbers, times and the store's place made alike, to compare the shape of output lines. */
const shape = (line: string) =>
  line
    .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/g, 'TIME')
    .replace(/\d+/g, 'N')
    .replace(/^(postgres|sqlite) store \S+,/, 'ENGINE store PLACE,');

describe('docs/deployment.md', () => {
  it("shows db status as it prints, with the current schema version", async () => {
    const example = /```\n\$ merchant-console db status\n([\s\S]*?)```/.exec(doc)?.[1]?.trimEnd().split('\n');
    expect(example).toBeDefined();
    expect(example![0]).toMatch(new RegExp(`^postgres store postgres://\\S+, schema version ${LATEST_SCHEMA_VERSION}$`));

    const dataDir = tempDir();
    const service = await testService({ dataDir });
    const m = await seedMerchant(service, 'M', { balance: 100_000 });
    // A job (the sell's hand-over) and a callback (the buy's payment) waiting, so every line shows an oldest due time.
    await allowPrivateCallbacks(service);
    await service.store.write((tx) => service.services.merchants.update(tx, { id: m.id, callback_url: 'http://127.0.0.1:9/cb' }));
    await newSell(service, m);
    await transition(service, await newBuy(service, m), 'paid');
    await service.close();
    const shown = await cli(['db', 'status', '--data-dir', dataDir]);
    expect(shown.code).toBe(0);
    expect(shown.stdout.split('\n').map(shape)).toEqual(example!.map(shape));
  });

  it("gives the row generation's statement for changes made with triggers off as migration 0011 makes a generation", () => {
    expect(prose).toContain(`\`UPDATE row_generation SET generation = ${NEW_POSTGRES_GENERATION};\``);
  });

  it('states the pool size, the claim times and the body limit the code uses', () => {
    expect(prose).toContain(`Each instance keeps a pool of ${DEFAULT_POOL_SIZE} connections`);
    expect(prose).toContain(`\`--pool-size N\` (or \`${POOL_SIZE_ENV}\`, 1–${MAX_POOL_SIZE}; refused without \`--database-url\`)`);
    expect(prose).toContain('connections (instances × pool size)');
    expect(prose).toContain('Size the server for `instances × pool size`');
    expect(prose).toContain(`about eighteen instances of ${DEFAULT_POOL_SIZE}.`);
    expect(prose).toContain(`A claim holds for ${JOB_CLAIM_SECONDS} s (jobs) or ${CALLBACK_CLAIM_SECONDS} s (callbacks)`);
    expect(prose).toContain(`refuses bigger bodies itself (${BODY_LIMIT_BYTES / 1024} KiB)`);
    expect(prose).toContain(`client_max_body_size ${BODY_LIMIT_BYTES / 1024}k;`);
  });

  it('quotes the master-key mismatch message as an instance prints it', () => {
    const location = 'postgres://merchant_console@db.internal:5432/merchant_console';
    expect(doc).toContain(`merchant-console serve: ${new MasterKeyMismatchError(location).message}\n`);
  });

  it('names only environment variables and commands that exist', () => {
    const known = [DATABASE_URL_ENV, MASTER_KEY_ENV, MASTER_KEY_FILE_ENV, CLAIM_SECONDS_ENV, KEYCHAIN_ENV, POOL_SIZE_ENV];
    const named = [...new Set(doc.match(/MERCHANT_CONSOLE_[A-Z_]+/g))];
    expect(named.filter((n) => !known.includes(n))).toEqual([]);
    expect(named.sort()).toEqual([...known].sort());

    const commands = COMMANDS.map((c) => c.name);
    // As run: at the start of a line, after a prompt, or in backticks.
    const used = [...new Set([...doc.matchAll(/(?:^|\$ |`)merchant-console ([a-z][a-z-]*(?: [a-z][a-z-]*)?)/gm)].map((m) => m[1]!))];
    const unknown = used.filter((u) => !commands.includes(u) && !commands.includes(u.split(' ')[0]!));
    expect(unknown).toEqual([]);
    expect(used).toEqual(expect.arrayContaining(['db copy', 'db status', 'serve']));
  });
});
