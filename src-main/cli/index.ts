import { processIo, runCli } from './main';

const code = await runCli(process.argv.slice(2), processIo);
process.exitCode = code;
