import { readFileSync } from 'node:fs';
import { ConfigError, ErrorCode, fileErrorText } from '@tideway/common';

/** Reads `-c FILE` and the `-i key=value` variables, as SubmitJob sends them. */
export function readJobInput(
  file: string | undefined,
  variables: string[],
): { configText: string; configFile: string; format: string; variables: Record<string, string> } {
  if (!file) throw new ConfigError(ErrorCode.CONFIG_SYNTAX, 'no job config given: pass -c <file>');
  let configText: string;
  try {
    configText = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(ErrorCode.CONFIG_SYNTAX, `cannot read the job config: ${fileErrorText(err)}`, {
      place: { file },
    });
  }
  const vars: Record<string, string> = {};
  for (const v of variables) {
    const eq = v.indexOf('=');
    if (eq <= 0) throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `-i ${v}: a job variable is written key=value`);
    vars[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return { configText, configFile: file, format: file.endsWith('.json') ? 'json' : 'hocon', variables: vars };
}
