// Per-request batching: a lookup that resolvers make object by object (each item of a list asking for its
// own rows) becomes one statement for all the objects a request resolves at once. Each loader is made for
// one request, keyed by that request's context object in a WeakMap, so nothing outlives the request or
// passes from one caller to another.
import DataLoader from 'dataloader';

/**
 * A loader whose batches run `batch(ctx, keys)`, one value (or Error) per key, in order; call it with a request's
 * context for that request's instance. Nothing is remembered beyond a batch, so a request that changes rows and
 * reads them again (two mutations in one document) reads them afresh.
 */
export function perRequest<C extends object, K, V>(batch: (ctx: C, keys: readonly K[]) => Promise<readonly (V | Error)[]>): (ctx: C) => DataLoader<K, V> {
  const loaders = new WeakMap<C, DataLoader<K, V>>();
  return (ctx) => {
    let loader = loaders.get(ctx);
    if (!loader) {
      loader = new DataLoader<K, V>((keys) => batch(ctx, keys), { cache: false });
      loaders.set(ctx, loader);
    }
    return loader;
  };
}

/** For each key, the row whose `keyOf` is that key (undefined when none is). */
export function oneEach<K, R>(keys: readonly K[], rows: readonly R[], keyOf: (row: R) => K): (R | undefined)[] {
  const byKey = new Map<K, R>();
  for (const row of rows) byKey.set(keyOf(row), row);
  return keys.map((key) => byKey.get(key));
}

/** For each key, the rows whose `keyOf` is that key, in the order of `rows`. */
export function allEach<K, R>(keys: readonly K[], rows: readonly R[], keyOf: (row: R) => K): R[][] {
  const byKey = new Map<K, R[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const list = byKey.get(key);
    if (list) list.push(row);
    else byKey.set(key, [row]);
  }
  return keys.map((key) => byKey.get(key) ?? []);
}
