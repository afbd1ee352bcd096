// A worker thread does not inherit the TypeScript loader of its parent (src/register.cjs, or jest's
// transform), so the nlp library's thread registers it itself before loading its TypeScript entry.
require('../../register.cjs');
require('./nlp-library-worker.ts');
