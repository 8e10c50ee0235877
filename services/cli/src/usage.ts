import { Command, CommanderError, type ErrorOptions } from 'commander';

/** Exit code for a command line the CLI cannot act on (as for bad config: 2). */
export const USAGE_EXIT_CODE = 2;

/** A command line the CLI refuses: one sentence, and the usage line of the command it was for. */
export class UsageError extends Error {
  override readonly name = 'UsageError';

  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

/** `tideway cluster start`, from the command up through its parents. */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * The usage line of a command: its path, its required options spelled out (a user should not
 * have to open --help to learn that `run` needs `-c <file>`), then its arguments.
 */
export function usageLine(cmd: Command): string {
  const required = cmd.options.filter((o) => o.mandatory).map((o) => `${o.short ?? o.long} ${o.flags.replace(/^.*?([<[].*)$/, '$1')}`);
  const args = cmd.registeredArguments.map((a) => {
    const name = `${a.name()}${a.variadic ? '...' : ''}`;
    return a.required ? `<${name}>` : `[${name}]`;
  });
  const commands = cmd.commands.length ? ['<command>'] : [];
  return [commandPath(cmd), ...required, '[options]', ...commands, ...args].join(' ');
}

/** Commander's message ("error: unknown option '--x'\n(Did you mean --y?)") as one sentence. */
function sentence(cmd: Command, message: string, code: string | undefined): string {
  const [first = '', ...rest] = message.replace(/^error: /, '').split('\n');
  const hint = rest.join(' ').replace(/^\(Did you mean (.*)\?\)$/, 'did you mean $1?');
  let text = first.replace(/\.$/, '');
  if (code === 'commander.unknownCommand') {
    const known = cmd.commands.map((c) => c.name()).join(', ');
    text = `${text} for '${commandPath(cmd)}': the commands are ${known}`;
  } else if (
    code === 'commander.unknownOption' ||
    code === 'commander.missingArgument' ||
    code === 'commander.missingMandatoryOptionValue' ||
    code === 'commander.optionMissingArgument'
  ) {
    text = `${text} for '${commandPath(cmd)}'`;
  }
  return hint ? `${text}; ${hint}` : text;
}

/**
 * Commander's Command, with its parse errors turned into UsageErrors that name the command and
 * carry its usage line, so that main prints one sentence and the usage and exits 2. Subcommands
 * made with `.command()` are of this class too.
 */
export class TidewayCommand extends Command {
  /** Unknown arguments of the last parse: an unknown option is the better error than a missing -c. */
  private unknown: string[] = [];

  override createCommand(name?: string): Command {
    return new TidewayCommand(name);
  }

  override parseOptions(argv: string[]): { operands: string[]; unknown: string[] } {
    const parsed = super.parseOptions(argv);
    this.unknown = parsed.unknown;
    return parsed;
  }

  override error(message: string, options?: ErrorOptions): never {
    const unknownOption = this.unknown.find((a) => a.startsWith('-'));
    if (options?.code === 'commander.missingMandatoryOptionValue' && unknownOption && !this.commands.length) {
      // `tideway --frob` (SeaTunnel's flags, so: submit) has no -c either; name what is wrong first.
      this.error(`error: unknown option '${unknownOption}'`, { code: 'commander.unknownOption' });
    }
    throw new UsageError(sentence(this, message, options?.code), usageLine(this));
  }
}

/**
 * What a CommanderError that is not a parse error means for the exit code: --help and
 * --version end with 0; help shown because a command was missing (`tideway`, `tideway cluster`)
 * is a usage error.
 */
export function commanderExitCode(err: CommanderError): number {
  if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
  if (err.code === 'commander.help') return err.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
  return err.exitCode;
}
