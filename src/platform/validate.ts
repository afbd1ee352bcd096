// Field checks that collect every problem before failing, so one 400 names all the bad fields.
import { ValidationFailed, type FieldError } from './errors';
import { checkOutboundUrl } from './outbound';

const CONTROL = /[\u0000-\u001f\u007f]/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export class Checks {
  readonly errors: FieldError[] = [];

  fail(path: string, message: string): void {
    this.errors.push({ path, message });
  }

  /** A well-formed value the caller may not give: 403 `forbidden` naming the field, unless another field is malformed (then 400 naming both). */
  refuse(path: string, message: string): void {
    this.errors.push({ path, message, refusal: 'forbidden' });
  }

  /** A trimmed single-line string within length bounds; returns it (or undefined when absent and optional). */
  text(path: string, value: unknown, opts: { min?: number; max: number; required?: boolean; multiline?: boolean }): string | undefined {
    if (value === undefined || value === null) {
      if (opts.required) this.fail(path, 'is required');
      return undefined;
    }
    if (typeof value !== 'string') {
      this.fail(path, 'must be a string');
      return undefined;
    }
    const text = value.trim();
    const min = opts.min ?? (opts.required ? 1 : 0);
    if (text.length < min) this.fail(path, min === 1 ? 'must not be empty' : `must be at least ${min} characters`);
    else if (text.length > opts.max) this.fail(path, `must be at most ${opts.max} characters`);
    else if (!opts.multiline && CONTROL.test(text)) this.fail(path, 'must not contain control characters');
    return text;
  }

  email(path: string, value: unknown, required = true): string | undefined {
    const text = this.text(path, value, { max: 254, required });
    if (text !== undefined && text.length > 0 && !EMAIL.test(text)) this.fail(path, 'must be an email address');
    return text?.toLowerCase();
  }

  /** A list of slug-like identifiers (lower-case letters, digits, dashes, dots), de-duplicated. */
  slugs(path: string, value: unknown, max: number): string[] | undefined {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) {
      this.fail(path, 'must be a list of strings');
      return undefined;
    }
    if (value.length > max) this.fail(path, `must have at most ${max} entries`);
    const out: string[] = [];
    value.forEach((item, i) => {
      if (typeof item !== 'string' || !/^[a-z0-9][a-z0-9.-]{0,63}$/.test(item)) {
        this.fail(`${path}.${i}`, 'must be an identifier of lower-case letters, digits, dots and dashes (at most 64)');
      } else if (!out.includes(item)) out.push(item);
    });
    return out;
  }

  /** An absolute https:// URL without credentials, at most 2048 characters. */
  httpsUrl(path: string, value: unknown, required = true): string | undefined {
    const text = this.text(path, value, { max: 2048, required });
    if (text === undefined || text === '') return undefined;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      this.fail(path, 'must be an absolute URL');
      return undefined;
    }
    if (url.protocol !== 'https:') this.fail(path, 'must use https');
    else if (url.username || url.password) this.fail(path, 'must not carry credentials');
    else if (!url.hostname) this.fail(path, 'must name a host');
    return url.toString();
  }

  /**
   * A URL the marketplace will send to (webhooks, callbacks, ticket endpoints): at most 2048 characters,
   * and what the outbound guard accepts (HTTPS; no private address unless `allowPrivate`).
   */
  receiverUrl(path: string, value: unknown, allowPrivate: boolean, required = true): string | undefined {
    const url = this.text(path, value, { max: 2048, required });
    if (url) {
      const problem = checkOutboundUrl(url, allowPrivate);
      if (problem) this.fail(path, problem);
    }
    return url;
  }

  /** One of `allowed`; absent, `fallback` when given, else "is required". */
  oneOf<T extends string>(path: string, value: unknown, allowed: readonly T[], fallback?: T): T | undefined {
    if (value === undefined || value === null) {
      if (fallback === undefined) this.fail(path, 'is required');
      return fallback;
    }
    if (typeof value !== 'string' || !allowed.includes(value as T)) {
      this.fail(path, `must be one of ${allowed.join(', ')}`);
      return undefined;
    }
    return value as T;
  }

  /** An integer within bounds, or undefined when absent. */
  integer(path: string, value: unknown, min: number, max: number): number | undefined {
    if (value === undefined || value === null) return undefined;
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
      this.fail(path, `must be an integer from ${min} to ${max}`);
      return undefined;
    }
    return value as number;
  }

  /**
   * An ISO 8601 timestamp after `now` and at most `maxAheadMs` after it (a deadline), or undefined when
   * absent.
   */
  futureTime(path: string, value: unknown, now: Date, maxAheadMs: number, within: string): Date | undefined {
    if (value === undefined || value === null) return undefined;
    const at = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : new Date(NaN);
    if (Number.isNaN(at.getTime())) this.fail(path, 'must be an ISO 8601 timestamp');
    else if (at <= now) this.fail(path, 'must be in the future');
    else if (at.getTime() - now.getTime() > maxAheadMs) this.fail(path, `must be within ${within}`);
    else return at;
    return undefined;
  }

  /**
   * An amount of US dollars (a JSON number of at most two decimals, 0 to `max`) as integer cents, or
   * undefined when absent.
   */
  dollars(path: string, value: unknown, max: number): number | undefined {
    if (value === undefined || value === null) return undefined;
    const cents = typeof value === 'number' ? Math.round(value * 100) : NaN;
    if (!Number.isFinite(cents) || Math.abs(cents - (value as number) * 100) > 1e-6 || cents < 0 || cents > max * 100) {
      this.fail(path, `must be an amount of US dollars from 0 to ${max} with at most two decimals`);
      return undefined;
    }
    return cents;
  }

  /**
   * A value that may come under any of several names (`vector` or `embedding`): the one given, with the
   * name it came under; two names given different values fail on the second.
   */
  synonym(given: Record<string, unknown>): { path: string; value: unknown } {
    const present = Object.entries(given).filter(([, v]) => v !== undefined && v !== null);
    if (!present.length) return { path: Object.keys(given)[0], value: undefined };
    const [[path, value], ...rest] = present;
    for (const [other, v] of rest) {
      if (JSON.stringify(v) !== JSON.stringify(value)) this.fail(other, `means the same as ${path}: give one of them`);
    }
    return { path, value };
  }

  /** Throws ValidationFailed naming every field that failed (or was refused). */
  done(): void {
    if (this.errors.length) throw new ValidationFailed(this.errors);
  }
}
