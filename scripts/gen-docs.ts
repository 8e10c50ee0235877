// `pnpm gen:docs`: writes docs/connectors/ from the plugin specs (the same specs that validate
// configs and drive `tideway describe`). A test fails when the committed pages are stale.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pluginReference, referenceFileName, referenceIndex, registry } from '@tideway/plugins';

const dir = 'docs/connectors';
mkdirSync(dir, { recursive: true });
for (const f of readdirSync(dir)) rmSync(join(dir, f));
const plugins = registry.list();
for (const p of plugins) writeFileSync(join(dir, referenceFileName(p)), pluginReference(p));
writeFileSync(join(dir, 'README.md'), referenceIndex(plugins));
console.log(`wrote ${plugins.length + 1} pages to ${dir}`);
