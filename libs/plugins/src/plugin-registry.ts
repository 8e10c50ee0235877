import { ErrorCode, ConfigError, type Place } from '@tideway/common';
import type { PluginFactory, PluginType } from '@tideway/api';

/** Plugin factories by type and SeaTunnel name (matched case-insensitively, as SeaTunnel does). */
export class PluginRegistry {
  private readonly byKey = new Map<string, PluginFactory>();

  constructor(factories: readonly PluginFactory[]) {
    for (const f of factories) this.byKey.set(`${f.type}:${f.name.toLowerCase()}`, f);
  }

  /** The factory for a plugin, or undefined. */
  find(type: PluginType, name: string): PluginFactory | undefined {
    return this.byKey.get(`${type}:${name.toLowerCase()}`);
  }

  /** The factory for a plugin; a ConfigError naming the place and the known plugins otherwise. */
  get(type: PluginType, name: string, place?: Place): PluginFactory {
    const f = this.find(type, name);
    if (f) return f;
    const known = this.list(type).map((p) => p.name);
    throw new ConfigError(ErrorCode.CONFIG_UNKNOWN_PLUGIN, `unknown ${type} plugin '${name}'; known ${type}s: ${known.join(', ')}`, { place });
  }

  list(type?: PluginType): PluginFactory[] {
    return [...this.byKey.values()].filter((f) => type === undefined || f.type === type).sort((a, b) => a.name.localeCompare(b.name));
  }
}
