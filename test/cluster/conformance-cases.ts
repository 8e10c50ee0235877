import { join } from 'node:path';
import { sharedConformanceDir } from '../conformance/conformance-files.js';

/** The folder of the shared SeaTunnel conformance job configs. */
export const casesDir = join(sharedConformanceDir(), 'cases');
