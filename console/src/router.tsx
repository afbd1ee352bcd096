// The console's routes: paths under /console, matched against a table of patterns (`:name` a segment),
// with the browser's history (back and forward work, every page has its address; the server answers
// index.html for any path under /console). Query strings hold a page's filters.
import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from 'react';

export const BASE = '/console';

const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());
/** Whether the page changed since the console loaded (see Page: a first load leaves the focus alone). */
let moved = false;
window.addEventListener('popstate', () => {
  moved = true;
  notify();
});

export const hasNavigated = () => moved;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const snapshot = () => window.location.pathname + window.location.search;

/** The console path (without /console) and its query, re-rendering on navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const href = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(href, window.location.origin);
  const path = url.pathname.startsWith(BASE) ? url.pathname.slice(BASE.length) || '/' : '/';
  return { path, query: url.searchParams };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const href = BASE + (to.startsWith('/') ? to : `/${to}`);
  if (options.replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  moved = true;
  notify();
  // A new page starts at its top, and its heading is announced (see Page in ui.tsx).
  window.scrollTo(0, 0);
}

/** Sets the page's query (its filters) without a new history entry. */
export function setQuery(values: Record<string, string | number | null | undefined>): void {
  const url = new URL(window.location.href);
  for (const [k, v] of Object.entries(values)) {
    if (v === null || v === undefined || v === '') url.searchParams.delete(k);
    else url.searchParams.set(k, String(v));
  }
  window.history.replaceState(null, '', url.pathname + url.search);
  notify();
}

export interface Route {
  pattern: string;
  render: (params: Record<string, string>) => ReactNode;
}

/** The first route whose pattern matches the path, with its parameters (decoded). */
export function match(routes: Route[], path: string): { route: Route; params: Record<string, string> } | null {
  const parts = path.split('/').filter(Boolean);
  for (const route of routes) {
    const pattern = route.pattern.split('/').filter(Boolean);
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < pattern.length && ok; i++) {
      if (pattern[i].startsWith(':')) {
        try {
          params[pattern[i].slice(1)] = decodeURIComponent(parts[i]);
        } catch {
          ok = false;
        }
      } else ok = pattern[i] === parts[i];
    }
    if (ok) return { route, params };
  }
  return null;
}

/** A link within the console: a real anchor (it opens in a new tab, and reads as a link), routed in place. */
export function Link({ to, children, ...rest }: { to: string; children: ReactNode } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  const href = BASE + (to.startsWith('/') ? to : `/${to}`);
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    rest.onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <a {...rest} href={href} onClick={onClick}>
      {children}
    </a>
  );
}

/** A path segment, encoded. */
export const seg = (value: string) => encodeURIComponent(value);
