// The console's build (`npm run console:build`, run by the postinstall) and its development server
// (`npm run console:dev`), which proxies the API to a marketplace already running (MARKETPLACE_URL, default
// http://127.0.0.1:3000). The server serves the build at /console (src/console.ts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));
const api = process.env.MARKETPLACE_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root: here,
  base: '/console/',
  publicDir: false,
  build: {
    outDir: process.env.CONSOLE_OUT_DIR ?? path.join(here, '..', 'node_modules', '.cache', 'marketplace-console'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
  server: {
    proxy: {
      '/graphql': { target: api, ws: true },
      '/api': api,
      '/.well-known': api,
    },
  },
});
