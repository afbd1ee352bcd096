// A worker thread does not inherit the TypeScript loader of its parent (tsx, or jest's transform), so the
// embedded database's worker registers tsx itself before loading its TypeScript entry.
require('tsx/cjs/api').register();
require('./pglite-worker.ts');
