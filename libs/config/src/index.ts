export * from './job-config.js';
export { parseJobConfig, loadJobConfigFile } from './parse-job-config.js';
export { validatePluginOptions, validateOptionBlock, findDotted, type OptionBlock } from './validate-plugin-options.js';
export { coerceOption, showValue, type Coerced } from './option-coercion.js';
export { suggestName, editDistance } from './suggest-name.js';
export { ENV_OPTIONS, ENGINE_SPECIFIC_ENV_KEYS, validateEnv, type EnvConfig } from './env-options.js';
export * as hocon from './hocon/index.js';
export { loadHocon, type HoconLoadOptions } from './hocon/index.js';
