import { join } from 'node:path';
import { sharedConformanceDir } from '../conformance/conformance-files.js';

const shared = sharedConformanceDir();

/**
 * The folder of the shared SeaTunnel conformance job configs, or undefined when shared/ is absent
 * outside CI (sharedConformanceDir printed how to get it): tests that run them skip then.
 */
export const casesDir: string | undefined = shared ? join(shared, 'cases') : undefined;
