// A worker thread does not inherit the TypeScript loader of its parent (src/register.cjs, or jest's
// transform), so the web reader's thread registers it itself before loading its TypeScript entry.
require('../../register.cjs');
require('./web-reader-worker.ts');
