// A worker thread does not inherit the TypeScript loader of its parent (src/register.cjs, or jest's
// transform), so the migrations' worker registers it itself before loading its TypeScript entry.
require('../register.cjs');
require('./migrate-worker.ts');
