/** The CLI's commands, parsed and run; main.ts imports this once it has started what starts early. */
import { CommanderError } from 'commander';
import { TidewayError, redactText } from '@tideway/common';
import { TidewayCommand, UsageError, USAGE_EXIT_CODE, commanderExitCode } from './usage.js';
import { registerCompletionCommand } from './commands/completion.js';
import { translateSeaTunnelArgv } from './seatunnel-argv.js';
import { registerCheckpointCommand } from './commands/checkpoint-command.js';
import { registerLogsCommand } from './commands/logs-command.js';
import { registerJobCommands } from './commands/job-commands.js';
import { registerLocalCommands } from './commands/local-commands.js';
import { registerClusterCommands } from './commands/cluster-commands.js';
import { registerVerifyCommand } from './commands/verify-command.js';
import { registerChaosCommand } from './commands/chaos-command.js';
import { registerShadeCommands } from './commands/shade-commands.js';
import { registerTokenCommand } from './commands/token-command.js';
import { registerPluginCommand } from './commands/plugin-command.js';
import { registerPluginsCommand } from './commands/plugins-command.js';
import { registerCompatCommand } from './commands/compat-command.js';
import { registerIcebergCommand } from './commands/iceberg-command.js';

const program = new TidewayCommand('tideway')
  .description(
    'Tideway: a data-integration engine (batch, streaming, CDC) that runs Apache SeaTunnel job configs.\n' +
      "SeaTunnel's flags work too: tideway -c job.conf -m local, -can <id>, -l, -j <id>, --metrics <id>, -s <id>, -r <id>, --restore-with-checkpoint <id>, -c job.conf --encrypt / --decrypt.",
  )
  .version('0.1.0')
  .showHelpAfterError(false)
  .exitOverride()
  .configureOutput({ outputError: (str, write) => write(str) });

registerLocalCommands(program);
registerJobCommands(program);
registerCheckpointCommand(program);
registerLogsCommand(program);
registerClusterCommands(program);
registerVerifyCommand(program);
registerShadeCommands(program);
registerTokenCommand(program);
registerChaosCommand(program);
registerPluginCommand(program);
registerPluginsCommand(program);
registerCompatCommand(program);
registerIcebergCommand(program);
registerCompletionCommand(program);

/** One line on stderr, the place first (a usage error adds the usage line); a non-zero exit code. */
export function reportError(err: unknown): number {
  if (err instanceof UsageError) {
    process.stderr.write(`tideway: ${err.message}\nusage: ${err.usage}\n`);
    return USAGE_EXIT_CODE;
  }
  // --help, --version, or the help shown for a missing command: commander has printed it.
  if (err instanceof CommanderError) return commanderExitCode(err);
  if (err instanceof TidewayError) {
    process.stderr.write(`tideway: ${err.message} [${err.code}]\n`);
    return err.code.startsWith('TW-CONFIG') || err.code.startsWith('TW-SQL') || err.code.startsWith('TW-SCHEMA') ? 2 : 1;
  }
  process.stderr.write(`tideway: ${redactText(err instanceof Error ? err.message : String(err))}\n`);
  if (process.env.TIDEWAY_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  return 1;
}

program
  .parseAsync(translateSeaTunnelArgv(process.argv.slice(2)), { from: 'user' })
  .then(() => process.exit(process.exitCode ?? 0))
  .catch((err: unknown) => process.exit(reportError(err)));
