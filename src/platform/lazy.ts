// A package loaded on its first use rather than at start, for what most starts never use
// (docs/operations.md, Footprint): `onFirstUse(() => require('x') as typeof import('x'))` answers a function
// that loads it the first time it is called and answers the same module ever after.
export function onFirstUse<T>(load: () => T): () => T {
  let loaded: { module: T } | undefined;
  return () => (loaded ??= { module: load() }).module;
}
