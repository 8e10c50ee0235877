import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { TidewayError, fileErrorText, newJobId, redactText } from '@tideway/common';
import { UsageError, usageLine } from '../usage.js';
import { collect } from './options.js';

/** Job config files in a folder, recursively, in name order: SeaTunnel's `.conf`, `.hocon` and `.json`. */
function configFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...configFiles(path));
    else if (entry.isFile() && /\.(conf|hocon|json)$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** One config's verdict. */
export interface CompatVerdict {
  readonly file: string;
  readonly runs: boolean;
  /** Why not: the planner's error, which starts with file:line and names the plugin and option. */
  readonly reason?: string;
  readonly code?: string;
}

/**
 * Whether Tideway runs a SeaTunnel job config unchanged: the config goes through the planner as
 * `tideway run` would plan it (parse, every plugin's options against its spec, the DAG, schemas),
 * and the first thing the planner refuses is the verdict. Errors that are not about the config
 * (a database that cannot be reached while a schema is read) say so too.
 */
export async function compatOf(file: string, variables: Record<string, string>): Promise<CompatVerdict> {
  const { planJobText } = await import('@tideway/planner');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { file, runs: false, reason: `${file}: cannot be read: ${fileErrorText(err)}` };
  }
  try {
    await planJobText(text, { jobId: newJobId(), file, format: file.endsWith('.json') ? 'json' : 'hocon', variables });
    return { file, runs: true };
  } catch (err) {
    if (err instanceof TidewayError) return { file, runs: false, reason: err.message, code: err.code };
    return { file, runs: false, reason: redactText(err instanceof Error ? err.message : String(err)) };
  }
}

/** `tideway compat <file|folder>`: per SeaTunnel config, does Tideway run it unchanged? Exit 0 all, 1 not all, 2 usage. */
export function registerCompatCommand(program: Command): void {
  const cmd = program
    .command('compat')
    .description(
      'check SeaTunnel job configs before switching: per config, whether Tideway runs it unchanged, and if not the plugin or option it lacks, ' +
        "with file:line (the same checks as 'tideway run' makes before starting a job). Exit code 0: every config runs, 1: some do not, 2: bad input.",
    )
    .argument('<path>', 'a job config, or a folder searched for .conf, .hocon and .json files')
    .option('-i, --variable <key=value>', 'job variable for ${key} in the configs (repeatable)', collect, [])
    .option('--json', 'print the verdicts as JSON');
  cmd.action(async (path: string, opts: { variable: string[]; json?: boolean }) => {
    let files: string[];
    try {
      files = statSync(path).isDirectory() ? configFiles(path) : [path];
    } catch (err) {
      throw new UsageError(`${path}: ${fileErrorText(err)}`, usageLine(cmd));
    }
    if (files.length === 0) throw new UsageError(`${path}: no job configs (.conf, .hocon, .json) in this folder`, usageLine(cmd));
    const variables: Record<string, string> = {};
    for (const v of opts.variable) {
      const eq = v.indexOf('=');
      if (eq <= 0) throw new UsageError(`-i ${v}: a job variable is written key=value`, usageLine(cmd));
      variables[v.slice(0, eq)] = v.slice(eq + 1);
    }
    const verdicts: CompatVerdict[] = [];
    for (const file of files) {
      const verdict = await compatOf(file, variables);
      verdicts.push(verdict);
      if (!opts.json) {
        // The planner's messages start with file:line; the others get the file put first.
        const why = verdict.reason?.startsWith(file) ? verdict.reason : `${file}: ${verdict.reason}`;
        process.stdout.write(verdict.runs ? `runs     ${file}\n` : `refused  ${why}${verdict.code ? ` [${verdict.code}]` : ''}\n`);
      }
    }
    const failing = verdicts.filter((v) => !v.runs).length;
    if (opts.json)
      process.stdout.write(`${JSON.stringify({ configs: verdicts.length, runUnchanged: verdicts.length - failing, verdicts }, null, 2)}\n`);
    else process.stdout.write(`${verdicts.length - failing} of ${verdicts.length} config(s) run unchanged on Tideway\n`);
    process.exitCode = failing === 0 ? 0 : 1;
  });
}
