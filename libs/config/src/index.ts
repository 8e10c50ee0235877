export * from './job-config.js';
export { parseJobConfig, loadJobConfigFile } from './parse-job-config.js';
export { validatePluginOptions, validateOptionBlock, findDotted, type OptionBlock } from './validate-plugin-options.js';
export { coerceOption, showValue, type Coerced } from './option-coercion.js';
export { suggestName, editDistance } from './suggest-name.js';
export {
  DEAD_LETTER_COLUMNS,
  deadLetterSink,
  errorHandlingOf,
  type DeadLetterConfig,
  type ErrorHandling,
  type ErrorHandlerConfig,
  type ErrorHandlingMode,
  type QueueOverflowPolicy,
} from './error-handling.js';
export { ENV_OPTIONS, ENGINE_SPECIFIC_ENV_KEYS, validateEnv, type EnvConfig } from './env-options.js';
export * as hocon from './hocon/index.js';
export { loadHocon, type HoconLoadOptions } from './hocon/index.js';
export { DEFAULT_CONFIG_LIMITS, type ConfigLimits } from './hocon/limits.js';
export { loadEngineConfig, checkScalar, type LoadEngineConfigOptions } from './engine/load-engine-config.js';
export { compileEngineConfig, type EngineConfig, type EngineConfigInput, type Endpoint } from './engine/engine-config.js';
export { NAMESPACE_NAME, type NamespaceLimits } from './engine/namespace-limits.js';
export { parseHostPort, formatHostPort, type HostPort } from './engine/host-port.js';
export { SEATUNNEL_ENGINE_SETTINGS, TIDEWAY_SETTINGS, type EngineSetting } from './engine/engine-settings.js';
export {
  configShade,
  decryptJobConfig,
  shadeJobConfigJson,
  mapShadedOptions,
  shadeIdentifierOf,
  SHADE_IDENTIFIERS,
  SHADED_OPTIONS,
  type ConfigShade,
} from './shade.js';
