// `pnpm gen:docs`: writes docs/connectors/ from the plugin specs (the same specs that validate
// configs and drive `tideway describe`). A test fails when the committed pages are stale.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadBuiltinPlugins, pluginReference, referenceFileName, referenceIndex } from '@tideway/plugins';

const dir = 'docs/connectors';
mkdirSync(dir, { recursive: true });
for (const f of readdirSync(dir)) rmSync(join(dir, f));
// The built-ins only: a plugin folder's packages have their own docs.
const plugins = (await loadBuiltinPlugins()).list();
for (const p of plugins) writeFileSync(join(dir, referenceFileName(p)), pluginReference(p));
writeFileSync(join(dir, 'README.md'), referenceIndex(plugins));
console.log(`wrote ${plugins.length + 1} pages to ${dir}`);
