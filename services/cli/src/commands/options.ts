import { loadEngineConfig, type EngineConfig } from '@tideway/config';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const collect = (v: string, acc: string[]) => [...acc, v];

/** deploy/seatunnel.yaml of this checkout: the engine defaults. */
export const DEFAULT_ENGINE_CONFIG = fileURLToPath(new URL('../../../../deploy/seatunnel.yaml', import.meta.url));

/** The engine config from --engine-config (or deploy/seatunnel.yaml) plus --set overrides. */
export function engineConfig(opts: { engineConfig?: string; set?: string[] }): EngineConfig {
  const file = opts.engineConfig ?? (existsSync(DEFAULT_ENGINE_CONFIG) ? DEFAULT_ENGINE_CONFIG : undefined);
  return loadEngineConfig({ file, sets: opts.set ?? [] });
}
