// Lists are Relay connections (first/after forwards, last/before backwards) that also take `offset`, so
// the REST listings' limit/offset run the same field. Each connection carries totalCount and nodes.
import { cursorToOffset, offsetToCursor } from '@pothos/plugin-relay';
import type { Ctx } from '../src/domain/context';
import type { FieldAuth } from './caller-auth';
import { ValidationFailed, type FieldError } from '../src/platform/errors';
import type { Page } from '../src/platform/page';

export interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  offset?: number | null;
}

export const DEFAULT_PAGE = 20;
export const MAX_PAGE = 100;
/** Past any list's length, and within what an OFFSET of int4 holds. */
const MAX_CURSOR = 2 ** 31 - 2;

/**
 * The slice of a list Relay's arguments ask for, as an offset and a size: forwards `first` after `after` (or from
 * `offset`), backwards `last` before `before`; `last` without `before` is the list's end, known only once counted
 * (`fromEnd`: see tailOf). `before` also bounds a forward page, and `after` a backward one.
 */
export function pageOf(args: PageArgs, defaultSize = DEFAULT_PAGE, maxSize = MAX_PAGE): Page & { fromEnd?: true } {
  const errors: FieldError[] = [];
  const given = (v: unknown) => v !== undefined && v !== null;
  const size = (name: 'first' | 'last') => {
    const value = args[name];
    if (given(value) && (!Number.isInteger(value) || value! < 1 || value! > maxSize))
      errors.push({ path: name, message: `must be an integer from 1 to ${maxSize}` });
    return value ?? defaultSize;
  };
  const cursor = (name: 'after' | 'before') => {
    if (!args[name]) return undefined;
    let at: number | undefined;
    try {
      at = cursorToOffset(args[name]!);
    } catch {
      at = undefined;
    }
    // A cursor is text the client may have made: only a position a list can have is one.
    if (at !== undefined && Number.isInteger(at) && at >= 0 && at < MAX_CURSOR) return at;
    errors.push({ path: name, message: 'is not a cursor of this list' });
    return undefined;
  };
  if (given(args.first) && given(args.last)) errors.push({ path: 'last', message: 'is for paging backwards: give first or last, not both' });
  if (given(args.offset) && (!Number.isInteger(args.offset) || args.offset! < 0)) errors.push({ path: 'offset', message: 'must be an integer of 0 or more' });
  const after = cursor('after');
  const before = cursor('before');
  const backwards = given(args.last);
  const limit = size(backwards ? 'last' : 'first');
  if (errors.length) throw new ValidationFailed(errors);
  const start = after !== undefined ? after + 1 : (args.offset ?? 0);
  if (backwards && before === undefined) return { offset: start, limit, fromEnd: true };
  if (backwards) {
    const offset = Math.max(start, before! - limit);
    return { offset, limit: Math.max(0, before! - offset) };
  }
  return { offset: start, limit: before === undefined ? limit : Math.max(0, Math.min(limit, before - start)) };
}

/** A page counted back from the end (`last` without `before`), once the list's length is known. */
export function tailOf(page: Page, total: number): Page {
  const offset = Math.max(page.offset, total - page.limit);
  return { offset, limit: Math.max(0, Math.min(page.limit, total - offset)) };
}

/**
 * A connection of the page the arguments ask for, read by `read` (items from the page's offset, and the list's length;
 * what else it answers stays on the connection). `last` without `before` reads from `after` first: the answer when the
 * list ends within that page, else the length that says where the last page starts.
 */
export async function resolveConnection<T, R extends { total: number }>(
  args: PageArgs,
  defaultSize: number | undefined,
  maxSize: number | undefined,
  read: (page: Page) => Promise<R & { items: readonly T[] }>,
) {
  const { fromEnd, ...asked } = pageOf(args, defaultSize, maxSize);
  let page: Page = asked;
  let got = await read(page);
  if (fromEnd) {
    page = tailOf(asked, got.total);
    if (page.offset !== asked.offset) got = await read(page);
  }
  const { items, total, ...beside } = got;
  return { ...beside, ...connectionOf(items, total, page) };
}

export function connectionOf<T>(items: readonly T[], total: number, page: Page) {
  const edges = items.map((node, i) => ({ cursor: offsetToCursor(page.offset + i), node }));
  return {
    edges,
    totalCount: total,
    pageInfo: {
      hasNextPage: page.offset + items.length < total,
      hasPreviousPage: page.offset > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
  };
}

export interface PagedFieldOptions<T> {
  description: string;
  auth?: FieldAuth;
  args?: Record<string, unknown>;
  defaultSize?: number;
  maxSize?: number;
  /**
   * `root` is the object the field is on (a connection field of a type). Members beside items and total
   * are kept on the connection, for `connectionFields` to answer.
   */
  resolve: (ctx: Ctx, args: Record<string, any>, page: Page, root: any) => Promise<{ items: readonly T[]; total: number }>;
  /** Fields of the connection beside edges, nodes, pageInfo and totalCount (the score a list of events moved). */
  connectionFields?: (c: any) => Record<string, unknown>;
}

/**
 * A connection field (first/after, last/before, plus offset for the REST listings) with totalCount and nodes.
 * `t` is a Pothos field builder; its generics are too deep to restate here.
 */
export function pagedField<T>(t: any, type: unknown, opts: PagedFieldOptions<T>) {
  return t.connection(
    {
      type,
      description: opts.description,
      ...(opts.auth ? { auth: opts.auth } : {}),
      args: { offset: t.arg.int({ description: 'Items to skip: an alternative to `after`' }), ...opts.args },
      // The page sizes pageOf holds first and last to, for the descriptions built from the schema (the
      // relay plugin declares those arguments, so the field states them).
      extensions: {
        argumentSchemas: {
          first: { minimum: 1, maximum: opts.maxSize ?? MAX_PAGE },
          last: { minimum: 1, maximum: opts.maxSize ?? MAX_PAGE },
          offset: { minimum: 0 },
        },
      },
      resolve: (root: unknown, args: Record<string, any>, ctx: Ctx) =>
        resolveConnection(args, opts.defaultSize, opts.maxSize, (page) => opts.resolve(ctx, args, page, root)),
    },
    {
      fields: (c: any) => ({
        totalCount: c.int({ description: 'Items in the whole list', resolve: (conn: { totalCount: number }) => conn.totalCount }),
        ...opts.connectionFields?.(c),
      }),
    },
  );
}
