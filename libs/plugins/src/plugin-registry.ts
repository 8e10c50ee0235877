import { ErrorCode, ConfigError, type Place } from '@tideway/common';
import type { PluginFactory, PluginType } from '@tideway/api';

/** Plugin factories by type and SeaTunnel name (matched case-insensitively, as SeaTunnel does). */
export class PluginRegistry {
  private readonly byKey = new Map<string, PluginFactory>();

  /**
   * @param known every plugin that exists, loaded here or not, for the message about an unknown
   *   name (a registry of a job's plugins holds just those); the factories when absent.
   */
  constructor(
    factories: readonly PluginFactory[],
    private readonly known: ReadonlyArray<{ readonly type: PluginType; readonly name: string }> = factories,
  ) {
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
    const known = this.known
      .filter((p) => p.type === type)
      .map((p) => p.name)
      .sort((a, b) => a.localeCompare(b));
    throw new ConfigError(ErrorCode.CONFIG_UNKNOWN_PLUGIN, `unknown ${type} plugin '${name}'; known ${type}s: ${known.join(', ')}`, {
      place,
    });
  }

  list(type?: PluginType): PluginFactory[] {
    return [...this.byKey.values()].filter((f) => type === undefined || f.type === type).sort((a, b) => a.name.localeCompare(b.name));
  }
}
