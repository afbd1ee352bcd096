// The two spellings of a field name, snake_case and camelCase, and reading free-form objects in either
// (CONTRACT §3: every request field is read in both). REST bodies use src/pipeline/spelling.ts, which walks input
// types; free-form objects the domain reads itself (a built-in capability's input) use `withBothSpellings`.
import { ValidationFailed } from './errors';

/** `pricingModel` → `pricing_model`, `latencyP50Ms` → `latency_p50_ms`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** `pricing_model` → `pricingModel`, `top_k` → `topK`. */
export function camelCase(name: string): string {
  return name.replace(/_+([a-z0-9])/g, (_m, ch: string) => ch.toUpperCase());
}

/** The other spelling of a name (itself when it has only one, like `limit`). */
export function otherSpelling(name: string): string {
  const snake = snakeCase(name);
  return snake === name ? camelCase(name) : snake;
}

/** Whether two JSON values are equal (objects in any key order), without recursion (bodies can be deep). */
export function sameJson(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length) {
    const [x, y] = stack.pop()!;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x)) {
      const ys = y as unknown[];
      if (x.length !== ys.length) return false;
      for (let i = 0; i < x.length; i++) stack.push([x[i], ys[i]]);
      continue;
    }
    const xk = Object.keys(x);
    const yo = y as Record<string, unknown>;
    if (xk.length !== Object.keys(yo).length) return false;
    for (const k of xk) {
      if (!Object.prototype.hasOwnProperty.call(yo, k)) return false;
      stack.push([(x as Record<string, unknown>)[k], yo[k]]);
    }
  }
  return true;
}

/**
 * A free-form object whose top-level fields can be read under either spelling (`agentName` or
 * `agent_name`); the same field given in both with different values is a validation error at `prefix.key`.
 */
export function withBothSpellings(value: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  const errors: { path: string; message: string }[] = [];
  for (const [key, v] of Object.entries(value)) {
    for (const name of new Set([key, otherSpelling(key)])) {
      if (!(name in out)) out[name] = v;
      else if (!sameJson(out[name], v)) {
        errors.push({ path: `${prefix}${key}`, message: `is given twice, as ${otherSpelling(key)} and ${key}, with different values` });
        break;
      }
    }
  }
  if (errors.length) throw new ValidationFailed(errors);
  return out;
}
