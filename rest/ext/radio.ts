// The radio (spec §4.13): channel subscriptions and the stream.
import { bucket, from, type Route } from '../route';

const radioEventFields = /* GraphQL */ `
  fragment RadioEventFields on RadioEvent {
    id
    sequence
    event
    type
    event_id: eventId
    channel
    data
    created_at: createdAt
  }
`;

export const radioRoutes: Route[] = [
  {
    method: 'POST',
    path: '/ext/radio/subscribe',
    bucket: bucket('ext_radio_subscribe', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'Follow radio channels',
    description:
      '`channels` required (up to 50 in all): a `social-…` or `radio-…` capability (its executions), `social-*` or `radio-*` (every such capability), `announcements`, or `*` (everything). Added to what you follow; with `replace: true` they become all you follow (an empty list: none). Announcements reach every listener whatever it follows. `subscribed` says whether you follow any channel; `channels` lists them all. An open stream keeps the channels it opened with: reconnect (with Last-Event-ID) to apply a change.',
    document: /* GraphQL */ `
      mutation SubscribeRadio($input: SubscribeRadioInput!) {
        subscribeRadio(input: $input) {
          subscribed
          channels
        }
      }
    `,
    variables: { input: from.body },
  },
  {
    method: 'GET',
    path: '/ext/radio/subscriptions',
    bucket: bucket('ext_radio_subscriptions', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'The radio channels you follow',
    document: /* GraphQL */ `
      query RadioChannels {
        radioChannels {
          subscribed
          channels
        }
      }
    `,
  },
  {
    method: 'GET',
    path: '/ext/radio/stream',
    bucket: bucket('ext_radio_stream', 60),
    auth: 'agent',
    status: 200,
    tag: 'Gateway',
    summary: 'The radio as Server-Sent Events',
    description:
      "Runs `Subscription.radioEvents`: one message per broadcast on the channels you follow, and every announcement (`event:` `execution` or `announcement`, `id:` its number in the radio's stream). Executions of `social-*` and `radio-*` capabilities are broadcast by the transaction that records them (`data`: execution_id, capability, agent_id, service_id, status, result on success, latency_ms); announcements by the administrator (`POST /admin/radio/announcements`). `Last-Event-ID` replays the broadcasts after it first (kept 7 days). At most STREAMS_PER_AGENT open streams per agent (429 beyond).",
    errors: [429],
    document: /* GraphQL */ `
      subscription RadioEvents($after: Int) {
        radioEvents(after: $after) {
          ...RadioEventFields
        }
      }
      ${radioEventFields}
    `,
    variables: { after: from.header('Last-Event-ID', 'Resume after this broadcast number') },
  },
];
