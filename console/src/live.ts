// Live feeds: a GraphQL subscription over graphql-ws that survives a dropped connection. When the socket
// closes (a restart, a network change, a sleeping laptop) the feed subscribes again after a short wait,
// from the last event it saw where the subscription takes a cursor (`after`), so nothing is shown twice or
// missed; one without a cursor tells the page (onResumed) to read again what it lists.
import { useEffect, useRef, useState } from 'react';
import type { TypedDocumentString } from './gql/graphql';
import { useClients } from './clients-context';
import { graphql } from './gql';

export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'closed';

export interface LiveOptions<T> {
  /** The cursor an event carries (its sequence), passed back as `after` on resuming. */
  cursorOf?: (event: T) => number | null | undefined;
  /** After a reconnection of a feed without a cursor: read again what the page lists. */
  onResumed?: () => void;
  /** The most events kept, newest first (default 50). */
  keep?: number;
  /** Subscribe only while true. */
  enabled?: boolean;
}

/** Waits before subscribing again: 1, 2, 4, 8 then 15 s. */
const backoff = (attempt: number) => Math.min(15_000, 1000 * 2 ** Math.min(attempt, 4));

export function useLive<T, V extends Record<string, unknown>>(
  document: TypedDocumentString<T, V>,
  variables: V,
  pick: (data: T) => unknown,
  options: LiveOptions<unknown> = {},
): { events: unknown[]; status: LiveStatus; error: string | null } {
  const { ws, wsOpen } = useClients();
  const [events, setEvents] = useState<unknown[]>([]);
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const [error, setError] = useState<string | null>(null);
  const latest = useRef({ pick, options });
  latest.current = { pick, options };
  const key = JSON.stringify(variables);
  const enabled = options.enabled ?? true;

  useEffect(() => {
    if (!enabled) {
      setStatus('closed');
      return;
    }
    let cursor: number | null = null;
    let attempt = 0;
    let stopped = false;
    let unsubscribe: (() => void) | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let resumed = false;

    const start = () => {
      if (stopped) return;
      const vars = cursor === null ? variables : { ...variables, after: cursor };
      unsubscribe = ws.subscribe<T>(
        { query: document.toString(), variables: vars },
        {
          next: (result) => {
            if (result.errors?.length) {
              setError(result.errors.map((e) => e.message).join('; '));
              return;
            }
            if (!result.data) return;
            attempt = 0;
            setStatus('live');
            setError(null);
            const event = latest.current.pick(result.data);
            const c = latest.current.options.cursorOf?.(event);
            if (typeof c === 'number') cursor = c;
            const keep = latest.current.options.keep ?? 50;
            setEvents((prev) => [event, ...prev].slice(0, keep));
          },
          error: (err) => {
            // A close of the socket (a CloseEvent), or the server's refusal of the operation (GraphQL errors).
            if (Array.isArray(err)) {
              setError(err.map((e: { message?: string }) => e.message ?? String(e)).join('; '));
              setStatus('closed');
              return;
            }
            // Refused for good (an unknown or revoked key, a bad request): retrying would be refused again.
            const code = (err as { code?: unknown } | null)?.code;
            if (typeof code === 'number' && code >= 4400 && code < 4500 && code !== 4408 && code !== 4429) {
              setError((err as { reason?: string }).reason || `the server closed the feed (${code})`);
              setStatus('closed');
              return;
            }
            retry();
          },
          complete: () => {
            // The server ended the stream (a session that ended): nothing to resume.
            if (!stopped) setStatus('closed');
          },
        },
      );
      // graphql-ws connects lazily: the socket opens with the first subscription ('connected' below); one
      // made on a socket already open is live at once.
      if (wsOpen()) setStatus('live');
      else if (attempt === 0 && !resumed) setStatus((s) => (s === 'live' ? s : 'connecting'));
    };
    const retry = () => {
      if (stopped) return;
      setStatus('reconnecting');
      resumed = true;
      timer = setTimeout(() => {
        if (cursor === null) latest.current.options.onResumed?.();
        start();
      }, backoff(attempt++));
    };
    const offConnected = ws.on('connected', () => {
      if (!stopped) setStatus('live');
    });
    start();
    return () => {
      stopped = true;
      clearTimeout(timer);
      offConnected();
      unsubscribe?.();
    };
    // The document and variables (by value) name the feed.
  }, [ws, wsOpen, document, key, enabled]);

  return { events, status, error };
}

const AgentEventTypes = graphql(`
  subscription ConsoleAgentEventTypes {
    agentEvents {
      id
      type
    }
  }
`);

/**
 * Reads a page's list again whenever one of the agent's events whose type starts with one of `prefixes`
 * happens (an execution recorded, an event that made deliveries), and after a reconnection (what happened
 * meanwhile); answers the feed's status for the page to show.
 */
export function useRefetchOnEvents(prefixes: string[], refetch: () => void): LiveStatus {
  const { status } = useLive(
    AgentEventTypes,
    {},
    (d) => {
      if (prefixes.some((p) => d.agentEvents.type.startsWith(p))) refetch();
      return d.agentEvents;
    },
    { keep: 1, onResumed: refetch },
  );
  return status;
}
