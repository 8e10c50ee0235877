#!/usr/bin/env node
/**
 * The CLI's entry. `tideway run` starts the worker's spare task thread here, before the rest of
 * the CLI is imported: the thread loads the runtime on the other core while this one loads the
 * services (docs/decisions/0096). Then the commands (cli.ts) load and run.
 */
import { startEarlySpare } from './early-spare.js';

// The AWS SDK warns on every run under Node 20 that its releases after January 2027 will need
// Node 22; Tideway pins its SDK version (stack.md), so the notice is only noise for users. Set
// before any thread starts: threads copy the environment.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

startEarlySpare(process.argv.slice(2));
await import('./cli.js');
