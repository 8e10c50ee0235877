// Bundles the installed (and patched) Kafka client, @platformatic/kafka, into one ES module of
// the Kafka connector's build: libs/connectors/kafka/dist/vendor/platformatic-kafka.js, which the
// built connector imports through its package.json "imports" entry `#kafka-client` (the sources,
// under the `source` condition, import the package itself). Run by `pnpm build` after tsc.
//
// Why (docs/decisions/0103-kafka-client-bundle.md): the client is 175 ES modules, and loading
// them cost 90 ms of wall time and 110 ms of CPU in every thread that plans or runs a Kafka job,
// on the main thread's path to the first row; as one module, 35 ms.
//
// What stays outside the bundle, resolved at run time from the connector's own dependencies
// (its package.json lists each, at the client's versions):
// - @node-rs/crc32 (a native addon) and @platformatic/wasm-utils (reads its .wasm beside itself);
// - what the client requires with createRequire (esbuild cannot see those calls): mnemonist's
//   LRU cache, and, on first use, ajv, avsc and protobufjs.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const connector = join(dirname(fileURLToPath(import.meta.url)), '..', 'libs', 'connectors', 'kafka');
const entry = createRequire(join(connector, 'package.json')).resolve('@platformatic/kafka');
const out = join(connector, 'dist', 'vendor', 'platformatic-kafka.js');
mkdirSync(dirname(out), { recursive: true });

await build({
  entryPoints: [entry],
  outfile: out,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['@node-rs/crc32', '@platformatic/wasm-utils'],
  // The client's CommonJS dependencies (debug) require Node's modules: an ES module has no
  // `require` of its own.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  legalComments: 'inline',
  logLevel: 'warning',
});
