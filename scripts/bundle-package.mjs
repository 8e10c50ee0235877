// Builds what `pnpm pack` puts in the tarball of a package published from this workspace
// (@tideway/client, @tideway/api): dist/bundle/ holds one ES module and one .d.ts with the
// package and the workspace code it uses (its @tideway/* devDependencies, inlined), so a project
// outside the repository installs one tarball whose only dependencies are the registry packages
// listed in its package.json (docs/decisions/0040-client-package.md). Run from the package's
// folder (its prepack: `tsc -b && node ../../scripts/bundle-package.mjs`).
import { builtinModules } from 'node:module';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { generateDtsBundle } from 'dts-bundle-generator';

const root = process.cwd();
// Under dist/ (beside tsc's output): scripts/cli-entry.mjs takes a newer file elsewhere for a stale build.
const out = join(root, 'dist', 'bundle');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
const inlined = Object.keys(manifest.devDependencies ?? {}).filter((n) => n.startsWith('@tideway/'));
const builtins = new Set(builtinModules);

/** The package a bare import names: `@scope/name` or `name`. */
const packageOf = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const imported = new Set();
await build({
  entryPoints: [join(root, 'src', 'index.ts')],
  outfile: join(out, 'index.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['source'],
  sourcemap: true,
  logLevel: 'warning',
  plugins: [
    {
      // Registry packages stay imports (the tarball's dependencies); the workspace's are inlined.
      name: 'registry-packages-external',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) => {
          if (args.path.startsWith('@tideway/')) return undefined;
          const name = args.path.startsWith('node:') ? args.path : packageOf(args.path);
          imported.add(name);
          return { path: args.path, external: true };
        });
      },
    },
  ],
});

const undeclared = [...imported].filter((n) => !n.startsWith('node:') && !builtins.has(n) && !declared.has(n));
if (undeclared.length) {
  console.error(
    `bundle: the bundle imports ${undeclared.join(', ')}, which ${root}/package.json does not list under dependencies or peerDependencies`,
  );
  process.exit(1);
}

// The declarations tsc -b wrote to dist/ (this package's and, through the types condition, those
// of the workspace packages it uses, inlined here; registry packages stay imports).
const [types] = generateDtsBundle(
  [
    {
      filePath: join(root, 'dist', 'index.d.ts'),
      output: { noBanner: true },
      libraries: { inlinedLibraries: inlined },
    },
  ],
  { preferredConfigPath: join(root, 'tsconfig.bundle.json') },
);
writeFileSync(join(out, 'index.d.ts'), types);
console.log(`bundle: ${out} (imports ${[...imported].sort().join(', ')})`);
