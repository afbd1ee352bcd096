// A worker thread does not inherit the TypeScript loader of its parent (src/register.cjs, or jest's
// transform), so the embedded database's worker registers it itself before loading its TypeScript entry.
require('../register.cjs');
require('./pglite-worker.ts');
