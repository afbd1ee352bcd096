// The radio (spec §4.13): the channels an agent follows, the stream of broadcasts and announcements.
import * as radio from '../../src/domain/radio/radio';
import { builder } from '../builder';
import { length, listOf, maxLength } from '../json-schema';

const RadioChannelsRef = builder.objectRef<radio.RadioChannels>('RadioChannels').implement({
  fields: (t) => ({
    subscribed: t.exposeBoolean('subscribed', { description: 'Whether you follow any channel (announcements reach every listener regardless)' }),
    channels: t.exposeStringList('channels', { description: 'Every channel you follow' }),
  }),
});

const SubscribeRadioInput = builder.inputType('SubscribeRadioInput', {
  fields: (t) => ({
    channels: t.stringList({
      description: `Required. Up to ${radio.MAX_RADIO_CHANNELS}: a social-… or radio-… capability (its executions), \`social-*\`, \`radio-*\`, \`announcements\`, or \`*\` (everything)`,
      extensions: listOf(radio.MAX_RADIO_CHANNELS),
    }),
    replace: t.boolean({ description: 'true: these become all you follow (an empty list: none); default: added to what you follow' }),
  }),
});

builder.mutationField('subscribeRadio', (t) =>
  t.field({
    type: RadioChannelsRef,
    description: 'Follows radio channels',
    auth: 'agent',
    args: { input: t.arg({ type: SubscribeRadioInput, required: true }) },
    resolve: (_r, { input }, ctx) => radio.subscribeRadio(ctx, input),
  }),
);

builder.queryField('radioChannels', (t) =>
  t.field({ type: RadioChannelsRef, description: 'The radio channels you follow', auth: 'agent', resolve: (_r, _a, ctx) => radio.radioChannels(ctx) }),
);

const RadioEventRef = builder.objectRef<radio.RadioEvent>('RadioEvent').implement({
  description: "One broadcast of the radio, numbered in the radio's stream",
  fields: (t) => ({
    id: t.id({ description: 'Its number, as a string (the SSE id, for Last-Event-ID)', resolve: (e) => String(e.seq) }),
    sequence: t.exposeInt('seq'),
    event: t.string({ description: 'Its type again: the SSE event name', resolve: (e) => e.type }),
    eventId: t.exposeString('eventId', { description: '`rev_…`' }),
    type: t.exposeString('type', { description: '`execution` (of a social-… or radio-… capability) or `announcement`' }),
    channel: t.exposeString('channel', { description: 'The capability executed, or `announcements`' }),
    data: t.field({
      type: 'JSON',
      description:
        'An execution: execution_id, capability, agent_id (the caller), service_id, status, result (on success), latency_ms. An announcement: title, message, data',
      resolve: (e) => e.data,
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (e) => e.createdAt }),
  }),
});

builder.subscriptionField('radioEvents', (t) =>
  t.field({
    type: RadioEventRef,
    description:
      "The radio's broadcasts on the channels you follow (as they are when the stream opens) and every announcement. `after` (a broadcast's number, as SSE's Last-Event-ID) replays those after it first (kept 7 days). Counts against the agent's concurrent streams.",
    auth: 'agent',
    args: { after: t.arg.int({ description: 'Resume after this number' }) },
    subscribe: (_root, args, ctx) => radio.followRadio(ctx, args),
    resolve: (event) => event,
  }),
);

builder.mutationField('createRadioAnnouncement', (t) =>
  t.field({
    type: RadioEventRef,
    description: 'A marketplace announcement, broadcast to every radio listener (administrator)',
    auth: 'admin',
    args: {
      input: t.arg({
        type: builder.inputType('CreateRadioAnnouncementInput', {
          fields: (f) => ({
            message: f.string({ description: 'Required: 1-2000 characters', extensions: length(1, 2000) }),
            title: f.string({ description: 'At most 200 characters', extensions: maxLength(200) }),
            data: f.field({ type: 'JSON', description: 'An object, at most 16 KiB' }),
          }),
        }),
        required: true,
      }),
    },
    resolve: (_r, { input }, ctx) => radio.announceOnRadio(ctx, input),
  }),
);
