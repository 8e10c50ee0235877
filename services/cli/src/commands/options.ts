import { ConfigError, ErrorCode } from '@tideway/common';
import { loadEngineConfig, type ConfigLimits, type EngineConfig } from '@tideway/config';
import { checkpointStorageFromConfig, type CheckpointStorage } from '@tideway/checkpoint';
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

/**
 * Reads the plugin folders of tideway.plugins.dirs (before any job is planned or any thread
 * started): a package that is malformed, built for another plugin API or reuses a plugin's name
 * is refused here in one sentence naming it (exit 2). No plugin code is loaded.
 */
export async function usePluginFolders(engine: EngineConfig): Promise<void> {
  const { usePluginDirs } = await import('@tideway/plugins/lazy');
  usePluginDirs(engine.tideway.plugins.dirs);
}

/** The checkpoint storage of seatunnel.engine.checkpoint.storage. */
export function checkpointStorageOf(engine: EngineConfig): CheckpointStorage {
  const s = engine.checkpoint.storage;
  return checkpointStorageFromConfig({ type: s.type, 'max-retained': s.maxRetained, 'plugin-config': s.pluginConfig });
}

/** seatunnel.engine.jar-storage as the coordinator takes it (seconds made milliseconds). */
export function pluginStorageOf(engine: EngineConfig): {
  enable: boolean;
  cacheDir: string;
  expiryMs: number;
  cleanupIntervalMs: number;
} {
  const j = engine.jarStorage;
  return {
    enable: j.enable,
    cacheDir: j.connectorJarStoragePath,
    expiryMs: j.connectorJarExpiryTime * 1000,
    cleanupIntervalMs: j.connectorJarCleanupTaskInterval * 1000,
  };
}

/** Every coordinator's address: tideway.coordinator.addresses, or this config's own coordinator. */
export function coordinatorAddresses(engine: EngineConfig): string[] {
  const c = engine.tideway.coordinator;
  return c.addresses.length > 0 ? [...c.addresses] : [`${c.host}:${c.port}`];
}

/** The job config limits of tideway.limits, for the coordinator (and the REST API's own parsing). */
export function configLimitsOf(engine: EngineConfig): ConfigLimits {
  const l = engine.tideway.limits;
  return { maxBytes: l.maxConfigBytes, maxDepth: l.maxConfigDepth };
}

/** --metrics-port: a port number, 0 for a free one. */
export function metricsPortOf(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `--metrics-port ${text}: expected a port number (0 picks a free one)`);
  return port;
}
