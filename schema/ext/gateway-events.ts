// Gateway events (spec §4.13): what is addressed to the caller's external agents, polled by cursor.
import * as events from '../../src/domain/ext/gateway-events';
import { builder } from '../builder';
import { range } from '../json-schema';

const GatewayEventRef = builder.objectRef<events.GatewayEventView>('GatewayEvent').implement({
  fields: (t) => ({
    id: t.exposeID('id', { description: '`gev_…`' }),
    seq: t.exposeInt('seq', { description: 'Its number in the owner’s stream' }),
    type: t.exposeString('type', { description: events.GATEWAY_EVENT_TYPES.map((e) => `\`${e}\``).join(', ') }),
    externalAgentId: t.exposeID('externalAgentId'),
    data: t.field({ type: 'JSON', resolve: (e) => e.data }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const GatewayPoll = builder.objectRef<events.GatewayPoll>('GatewayPoll').implement({
  description: "Events addressed to the caller's external agents after a cursor",
  fields: (t) => ({
    events: t.field({ type: [GatewayEventRef], resolve: (p) => p.events }),
    cursor: t.exposeInt('cursor', { description: 'The number of the last event answered (where the poll started when none): pass it back as `after`' }),
    hasMore: t.exposeBoolean('hasMore'),
  }),
});

builder.queryField('gatewayEvents', (t) =>
  t.field({
    type: GatewayPoll,
    description: `The events addressed to the caller's external agents after \`after\` (absent: after the cursor it last acknowledged), oldest first. Passing \`after\` acknowledges every event up to it; nothing else changes, so an event is answered again until a cursor passes it. Kept ${events.GATEWAY_EVENT_RETENTION_DAYS} days.`,
    auth: 'agent',
    args: {
      after: t.arg.int({ extensions: range(0, 2 ** 31 - 1) }),
      limit: t.arg.int({ description: `1-${events.POLL_MAX} (default ${events.POLL_DEFAULT})`, extensions: range(1, events.POLL_MAX) }),
    },
    resolve: (_r, args, ctx) => events.gatewayEvents(ctx, args),
  }),
);
