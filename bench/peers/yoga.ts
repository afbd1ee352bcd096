// GraphQL peer: graphql-yoga mounted in Express at /graphql with a trivial schema whose `me` resolver
// does the same bearer lookup as the server.
import http from 'node:http';
import express, { type RequestHandler } from 'express';
import { GraphQLError } from 'graphql';
import { createSchema, createYoga, type YogaInitialContext } from 'graphql-yoga';
import { bearerSecret, main, openPeerDb, serve, sha256Hex } from './common';

main(async () => {
  const db = await openPeerDb();
  const schema = createSchema<YogaInitialContext>({
    typeDefs: /* GraphQL */ `
      type Query {
        me: Agent
      }
      type Agent {
        id: ID!
        name: String!
      }
    `,
    resolvers: {
      Query: {
        me: async (_root: unknown, _args: unknown, ctx: YogaInitialContext) => {
          const secret = bearerSecret(ctx.request.headers.get('authorization'));
          const agent = secret ? await db.agentByKeyHash(sha256Hex(secret)) : undefined;
          if (!agent) throw new GraphQLError('Unauthorized', { extensions: { code: 'UNAUTHENTICATED' } });
          return agent;
        },
      },
    },
  });
  const yoga = createYoga({ schema, graphqlEndpoint: '/graphql', landingPage: false });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(yoga.graphqlEndpoint, yoga as unknown as RequestHandler);
  serve(http.createServer(app), () => db.close());
});
