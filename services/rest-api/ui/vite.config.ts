import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The dashboard's bundle, served by the REST API at <context-path>/ui/. `base: './'` keeps the
// asset URLs relative, so any context path works; no CDN: everything is bundled.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: '../ui-dist', emptyOutDir: true, chunkSizeWarningLimit: 300 },
  logLevel: 'warn',
});
