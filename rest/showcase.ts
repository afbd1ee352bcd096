// REST route of the showcase listing, a Star privilege (spec §2): GET /showcase (rest/services.ts) shows its
// first ten; this pages through all of it.
import { bucket, from, type Route } from './route';
import { serviceFields } from './services';

export const showcaseRoutes: Route[] = [
  {
    method: 'GET',
    path: '/showcase/services',
    bucket: bucket('showcase_services', 60),
    auth: 'none',
    status: 200,
    tag: 'Statistics',
    summary: "The showcase listing: Star providers' services",
    description:
      'Active services of active Star providers (reputation 86 and above), ranked: best provider reputation first, then most successes, then the oldest. `GET /showcase` shows the first ten as `top_services`.',
    document: /* GraphQL */ `
      query ShowcaseServices($first: Int, $offset: Int) {
        showcaseServices(first: $first, offset: $offset) {
          total: totalCount
          services: nodes {
            ...ServiceListing
          }
        }
      }
      ${serviceFields}
    `,
    variables: { first: from.query('limit', 'Items to return, 1-100 (default 20)'), offset: from.query('offset', 'Items to skip (default 0)') },
  },
];
