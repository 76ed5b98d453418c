/**
 * merchant-console command line: `serve` and the admin commands. Runs in
 * plain Node (no build step in a checkout: bin/merchant-console.mjs loads
 * the TypeScript through tsx).
 */
import { adminCommands } from './commands/admin-commands';
import { moneyCommands } from './commands/money-commands';
import { sandboxCommands } from './commands/sandbox-commands';
import { callbackCommands } from './commands/callback-commands';
import { serveCommand } from './commands/serve-command';
import { signCommand } from './commands/sign-command';
import { accountCommands } from './commands/account-commands';
import { dbCommands } from './commands/db-commands';
import { openapiCommand } from './commands/openapi-command';
import { describeError, parseCommandArgs, UsageError, type CommandDef, type CommandIo } from './command';

export const COMMANDS: CommandDef[] = [
  serveCommand,
  ...adminCommands,
  ...moneyCommands,
  ...sandboxCommands,
  ...callbackCommands,
  ...accountCommands,
  ...dbCommands,
  signCommand,
  openapiCommand,
];

function helpText(): string {
  const lines = [
    'usage: merchant-console <command> [options]',
    '  every command takes --data-dir DIR, --json, --database-url postgres://… (or $MERCHANT_CONSOLE_DATABASE_URL: a team',
    '  deployment\'s PostgreSQL instead of the data dir\'s SQLite file) and --master-key-file FILE (or $MERCHANT_CONSOLE_MASTER_KEY)',
    '',
    'commands:',
  ];
  for (const c of COMMANDS) lines.push(`  ${c.name.padEnd(24)} ${c.summary}`);
  lines.push('', 'merchant-console <command> --help shows the options of one command.');
  return lines.join('\n');
}

/** Finds the longest command name that prefixes argv. */
function findCommand(argv: string[]): { def: CommandDef; rest: string[] } | undefined {
  let best: { def: CommandDef; rest: string[] } | undefined;
  for (const def of COMMANDS) {
    const words = def.name.split(' ');
    if (words.every((w, i) => argv[i] === w) && (!best || words.length > best.def.name.split(' ').length)) {
      best = { def, rest: argv.slice(words.length) };
    }
  }
  return best;
}

/** Returns the process exit code. */
export async function runCli(argv: string[], io: CommandIo): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    io.out(helpText());
    return argv.length === 0 ? 2 : 0;
  }
  const found = findCommand(argv);
  if (!found) {
    // Name the command words only (not `--data-dir` after them); a group word lists its commands.
    const words = argv.slice(0, 2);
    const optionAt = words.findIndex((w) => w.startsWith('-'));
    const typed = optionAt === 0 ? argv[0]! : (optionAt === -1 ? words : words.slice(0, optionAt)).join(' ');
    const group = COMMANDS.filter((c) => c.name.split(' ')[0] === argv[0]).map((c) => c.name);
    const hint = group.length > 0 && typed === argv[0] ? ` (one of: ${group.join(', ')})` : '';
    io.err(`unknown command: ${typed}${hint}\n\n${helpText()}`);
    return 2;
  }
  const { def, rest } = found;
  let json = rest.includes('--json');
  try {
    const args = parseCommandArgs(def, rest, io.env);
    json = args.json;
    if (args.help) {
      io.out(`usage: merchant-console ${def.usage}\n\n${def.summary}`);
      return 0;
    }
    const value = await def.run(args, io);
    if (value !== undefined) io.out(json || !def.human ? JSON.stringify(value, null, json ? undefined : 2) : def.human(value));
    return 0;
  } catch (err) {
    const message = describeError(err);
    if (json) io.err(JSON.stringify({ error: message }));
    else io.err(`merchant-console ${def.name}: ${message}`);
    if (err instanceof UsageError) {
      if (!json) io.err(`usage: merchant-console ${def.usage}`);
      return 2;
    }
    return 1;
  }
}

export const processIo: CommandIo = {
  out: (text) => process.stdout.write(text + '\n'),
  err: (text) => process.stderr.write(text + '\n'),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  env: process.env,
};
