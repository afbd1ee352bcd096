// The showcase listing, a Star privilege (spec §2): the services of Star providers, ranked, a page at a
// time. GET /showcase (schema/services.ts) shows its first ten beside the marketplace's statistics.
import * as stats from '../src/domain/stats/stats';
import { builder } from './builder';
import { pagedField } from './paging';
import { Service } from './services';

builder.queryField('showcaseServices', (t) =>
  pagedField(t, Service, {
    description:
      'The showcase listing (no credential needed): active services of active Star providers (reputation 86 and above), best provider reputation first, then most successes, then the oldest',
    resolve: (ctx, _args, page) => stats.showcaseServices(ctx, page),
  }),
);
