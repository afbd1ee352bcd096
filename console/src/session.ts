// The key the console signs in with: an agent's master key or the administrator's key. It lives in the
// tab's session storage (gone when the tab closes, never shared with another tab), is sent only in the
// Authorization header of requests to this origin and in the WebSocket's connection parameters, and never
// goes into a URL, the page's title or a log.
import { useSyncExternalStore } from 'react';

const STORAGE_KEY = 'marketplace.console.key';

export type KeyKind = 'agent' | 'admin';

export interface Session {
  key: string;
  /** An agent's master key (`key_master_…`) or the administrator's (`key_admin_…`), as the key's prefix says. */
  kind: KeyKind;
}

const listeners = new Set<() => void>();
let current: Session | null = read();

function read(): Session | null {
  let key: string | null = null;
  try {
    key = sessionStorage.getItem(STORAGE_KEY);
  } catch {
    // Storage refused (a private window's policy): the session lasts as long as the page.
  }
  return key ? { key, kind: kindOf(key) } : null;
}

/** The administrator's keys start `key_admin_`; every other key signs in as an agent. */
export function kindOf(key: string): KeyKind {
  return key.startsWith('key_admin_') ? 'admin' : 'agent';
}

export function signIn(key: string): void {
  const trimmed = key.trim();
  try {
    sessionStorage.setItem(STORAGE_KEY, trimmed);
  } catch {
    // Kept in memory only.
  }
  current = { key: trimmed, kind: kindOf(trimmed) };
  listeners.forEach((l) => l());
}

export function signOut(): void {
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing was stored.
  }
  current = null;
  listeners.forEach((l) => l());
}

export function getSession(): Session | null {
  return current;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The signed-in session, re-rendering on sign-in and sign-out. */
export function useSession(): Session | null {
  return useSyncExternalStore(subscribe, getSession);
}
