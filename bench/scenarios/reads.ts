// The cheapest reads against their hand-written peers: the agent's profile over REST and GraphQL, a sub-key
// verified, and the bare node:http reference.
import type { Target } from '../lib/load';
import { json, type Scenario, type ScenarioContext } from './scenario';

/** Our GET /api/v1/agents/me, checked to be the benchmark agent's profile; other scenarios' reference too. */
export function oursRest({ me, ours }: ScenarioContext): Target {
  return { name: 'ours', url: `${ours}/api/v1/agents/me`, method: 'GET', headers: { authorization: `Bearer ${me.masterKey}` }, check: restProfile(me) };
}

const restProfile = (me: ScenarioContext['me']) => (status: number, body: string) => {
  const b = json(body);
  return status === 200 && b.agent_id === me.id && b.name === me.name ? undefined : 'not the benchmark agent’s profile';
};

export function readScenarios(ctx: ScenarioContext): Scenario[] {
  const { me, subKey, ours, peers } = ctx;
  const auth = { authorization: `Bearer ${me.masterKey}` };
  const graphqlHeaders = { ...auth, 'content-type': 'application/json', accept: 'application/json' };
  const meQuery = JSON.stringify({ query: '{ me { id } }' });
  return [
    {
      name: 'rest_agents_me',
      ours: oursRest(ctx),
      peer: { name: 'express-pg', url: `${peers['express-pg']}/api/v1/agents/me`, method: 'GET', headers: auth, check: restProfile(me) },
      targets: { rps: 0.85 },
    },
    {
      name: 'graphql_me',
      ours: {
        name: 'ours',
        url: `${ours}/graphql`,
        method: 'POST',
        headers: graphqlHeaders,
        body: meQuery,
        // Ours answers the Relay global id, base64 of "Agent:<uuid>".
        check: (_s, body) => {
          const b = json(body);
          const id = b.data?.me?.id;
          return !b.errors && typeof id === 'string' && Buffer.from(id, 'base64').toString().endsWith(me.id) ? undefined : 'not the benchmark agent';
        },
      },
      peer: {
        name: 'yoga',
        url: `${peers.yoga}/graphql`,
        method: 'POST',
        headers: graphqlHeaders,
        body: meQuery,
        check: (_s, body) => {
          const b = json(body);
          return !b.errors && b.data?.me?.id === me.id ? undefined : 'not the benchmark agent';
        },
      },
      targets: { rps: 1.0 },
    },
    {
      name: 'keys_verify',
      ours: {
        name: 'ours',
        url: `${ours}/api/v1/keys/verify`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: subKey }),
        check: (status, body) => (status === 200 && json(body).valid === true && json(body).agent_id === me.id ? undefined : 'not a valid verification'),
      },
      peer: {
        name: 'express-pg',
        url: `${peers['express-pg']}/api/v1/keys/verify`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: subKey }),
        check: (status, body) => (status === 200 && json(body).valid === true && json(body).agent_id === me.id ? undefined : 'not a valid verification'),
      },
      targets: { rps: 0.9 },
    },
  ];
}

/** Our profile read against fixed JSON from node:http: what the framework and the read cost over nothing. */
export function bareHttpReference(ctx: ScenarioContext): Scenario {
  const auth = { authorization: `Bearer ${ctx.me.masterKey}` };
  return {
    name: 'bare_http_reference',
    ours: { ...oursRest(ctx) },
    peer: { name: 'bare-http', url: `${ctx.peers['bare-http']}/`, method: 'GET', headers: auth, check: () => undefined },
    targets: {},
  };
}
