// Lists are Relay connections (first/after) that also take `offset`, so the REST listings' limit/offset
// run the same field. Each connection carries totalCount and nodes.
import { cursorToOffset, offsetToCursor } from '@pothos/plugin-relay';
import type { Ctx } from '../src/domain/context';
import type { FieldAuth } from './caller-auth';
import { ValidationFailed } from '../src/platform/errors';

export interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  offset?: number | null;
}

export interface Page {
  offset: number;
  limit: number;
}

export const DEFAULT_PAGE = 20;
export const MAX_PAGE = 100;

export function pageOf(args: PageArgs, defaultSize = DEFAULT_PAGE, maxSize = MAX_PAGE): Page {
  const errors = [];
  if (args.last !== undefined && args.last !== null) errors.push({ path: 'last', message: 'is not supported: page forwards with first and after (or offset)' });
  if (args.before) errors.push({ path: 'before', message: 'is not supported: page forwards with first and after (or offset)' });
  const limit = args.first ?? defaultSize;
  if (!Number.isInteger(limit) || limit < 1 || limit > maxSize) errors.push({ path: 'first', message: `must be an integer from 1 to ${maxSize}` });
  let offset = args.offset ?? 0;
  if (args.offset !== undefined && args.offset !== null && (!Number.isInteger(args.offset) || args.offset < 0)) {
    errors.push({ path: 'offset', message: 'must be an integer of 0 or more' });
  }
  if (args.after) {
    try {
      offset = cursorToOffset(args.after) + 1;
    } catch {
      errors.push({ path: 'after', message: 'is not a cursor of this list' });
    }
  }
  if (errors.length) throw new ValidationFailed(errors);
  return { offset, limit };
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
  /** `root` is the object the field is on (a connection field of a type). */
  resolve: (ctx: Ctx, args: Record<string, any>, page: Page, root: any) => Promise<{ items: readonly T[]; total: number }>;
}

/**
 * A connection field (first/after, plus offset for the REST listings) with totalCount and nodes.
 * `t` is a Pothos field builder; its generics are too deep to restate here.
 */
export function pagedField<T>(t: any, type: unknown, opts: PagedFieldOptions<T>) {
  return t.connection(
    {
      type,
      description: opts.description,
      ...(opts.auth ? { auth: opts.auth } : {}),
      args: { offset: t.arg.int({ description: 'Items to skip: an alternative to `after`' }), ...opts.args },
      resolve: async (root: unknown, args: Record<string, any>, ctx: Ctx) => {
        const page = pageOf(args, opts.defaultSize, opts.maxSize);
        const { items, total } = await opts.resolve(ctx, args, page, root);
        return connectionOf(items, total, page);
      },
    },
    { fields: (c: any) => ({ totalCount: c.int({ description: 'Items in the whole list', resolve: (conn: { totalCount: number }) => conn.totalCount }) }) },
  );
}
