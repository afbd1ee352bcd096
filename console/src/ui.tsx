// The console's building blocks: a page with its heading, tables with captions, labelled fields, the
// states of a query (loading, failed, empty), money, times, statuses and a score's parts as people read them.
import { useEffect, useId, useRef, useState, type ReactNode, type InputHTMLAttributes, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import type { CombinedError } from 'urql';
import { hasNavigated } from './router';

/**
 * A page: its title in the tab and as the one h1, which takes the focus when the console moves to it (so a
 * screen reader announces where a link led, and the keyboard starts from the top of the new page). On the
 * console's first load the focus stays where the browser puts it: the skip link comes first.
 */
export function Page({ title, intro, actions, children }: { title: string; intro?: ReactNode; actions?: ReactNode; children: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Marketplace console`;
    if (hasNavigated()) heading.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <>
      <div className="page-head">
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {actions && <div className="actions">{actions}</div>}
      </div>
      {intro && <p className="intro">{intro}</p>}
      {children}
    </>
  );
}

export function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  const id = useId();
  return (
    <section aria-labelledby={id} className="section">
      <div className="section-head">
        <h2 id={id}>{title}</h2>
        {actions && <div className="actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}

/** A query's state: what it answered, or that it is loading, or why it failed. */
export function Loaded<T>({
  result,
  children,
  empty,
}: {
  result: { data?: T; fetching: boolean; error?: CombinedError };
  children: (data: T) => ReactNode;
  empty?: (data: T) => boolean;
}) {
  if (result.error && !result.data) return <ErrorNote error={result.error} />;
  if (!result.data)
    return (
      <p className="muted" role="status">
        Loading…
      </p>
    );
  if (empty?.(result.data)) return <p className="muted">Nothing here yet.</p>;
  return <>{children(result.data)}</>;
}

/** What the server said went wrong, as it said it (GraphQL errors carry the problem's detail). */
export function errorText(error: CombinedError | Error | string): string {
  if (typeof error === 'string') return error;
  const combined = error as CombinedError;
  if (combined.graphQLErrors?.length) return combined.graphQLErrors.map((e) => e.message).join('; ');
  if (combined.networkError) return `The marketplace could not be reached: ${combined.networkError.message}`;
  return error.message;
}

export function ErrorNote({ error }: { error: CombinedError | Error | string }) {
  return (
    <p className="error" role="alert">
      {errorText(error)}
    </p>
  );
}

export interface Column<T> {
  label: string;
  cell: (row: T) => ReactNode;
  /** Right-aligned (numbers, money). */
  numeric?: boolean;
}

/** A table of rows, with a caption for screen readers and a horizontal scroll on narrow screens. */
export function Table<T>({ caption, columns, rows, rowKey }: { caption: string; columns: Column<T>[]; rows: T[]; rowKey: (row: T) => string }) {
  if (!rows.length) return <p className="muted">Nothing here yet.</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={caption}>
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.label} scope="col" className={c.numeric ? 'num' : undefined}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.label} className={c.numeric ? 'num' : undefined}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Name–value pairs. */
export function Facts({ items }: { items: [label: string, value: ReactNode][] }) {
  return (
    <dl className="facts">
      {items.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value ?? '—'}</dd>
        </div>
      ))}
    </dl>
  );
}

type FieldProps = { label: string; hint?: ReactNode; error?: string | null };

/** The ids of what describes a field: its hint, and what is wrong with its value. */
function describedBy(id: string, hint: ReactNode, error: string | null | undefined): string | undefined {
  return [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
}

export function TextField({ label, hint, error, ...input }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-describedby={describedBy(id, hint, error)} aria-invalid={error ? true : undefined} {...input} />
      {hint && (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      )}
      {error && (
        <small id={`${id}-error`} className="field-error">
          {error}
        </small>
      )}
    </div>
  );
}

export function TextArea({ label, hint, error, ...input }: FieldProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} aria-describedby={describedBy(id, hint, error)} aria-invalid={error ? true : undefined} {...input} />
      {hint && (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      )}
      {error && (
        <small id={`${id}-error`} className="field-error">
          {error}
        </small>
      )}
    </div>
  );
}

export function SelectField({
  label,
  options,
  ...select
}: FieldProps & { options: [value: string, label: string][] } & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} {...select}>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

/** US cents as dollars. */
export function Money({ cents }: { cents: number | null | undefined }) {
  if (cents === null || cents === undefined) return <>—</>;
  return <>{(cents / 100).toLocaleString('en-US', { style: 'currency', currency: 'USD' })}</>;
}

/** A time, as when it was (its exact instant on hover and for assistive technology). */
export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <>—</>;
  const date = new Date(at);
  return (
    <time dateTime={at} title={date.toISOString()}>
      {date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
    </time>
  );
}

const TONES: Record<string, 'good' | 'bad' | 'warn' | 'neutral'> = {
  success: 'good',
  succeeded: 'good',
  delivered: 'good',
  active: 'good',
  ACTIVE: 'good',
  healthy: 'good',
  ok: 'good',
  resolved: 'good',
  completed: 'good',
  failed: 'bad',
  failure: 'bad',
  error: 'bad',
  dead: 'bad',
  SUSPENDED: 'bad',
  BANNED: 'bad',
  suspended: 'bad',
  unhealthy: 'bad',
  pending: 'warn',
  open: 'warn',
  paused: 'warn',
  degraded: 'warn',
  retrying: 'warn',
  running: 'warn',
};

/** A status word, coloured by what it means (the word itself carries the meaning). */
export function Status({ value }: { value: string | null | undefined }) {
  if (!value) return <>—</>;
  return <span className={`status status-${TONES[value] ?? 'neutral'}`}>{value}</span>;
}

const FACTORS = ['reputation', 'cost', 'reliability', 'latency', 'freshness'] as const;

/** The five parts of a score, as a stacked bar and as text. */
export function Breakdown({ breakdown }: { breakdown: Record<(typeof FACTORS)[number], number> }) {
  const text = FACTORS.map((f) => `${f} ${breakdown[f].toFixed(1)}`).join(', ');
  return (
    <span className="breakdown" title={text}>
      <span className="bar" aria-hidden="true">
        {FACTORS.map((f) => (
          <span key={f} className={`bar-${f}`} style={{ width: `${Math.max(0, breakdown[f])}%` }} />
        ))}
      </span>
      <span className="visually-hidden">{text}</span>
    </span>
  );
}

/**
 * A button for what cannot be undone (cancel, delete, revoke): it asks `question` first, and is disabled
 * while the action runs.
 */
export function ConfirmButton({
  question,
  action,
  label,
  children,
}: {
  question: string;
  action: () => Promise<unknown>;
  label?: string;
  children: ReactNode;
}) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className="danger"
      aria-label={label}
      disabled={busy}
      onClick={async () => {
        if (!window.confirm(question)) return;
        setBusy(true);
        try {
          await action();
        } finally {
          setBusy(false);
        }
      }}
    >
      {children}
    </button>
  );
}

/** A secret the server shows once: in full, with a copy button, until dismissed. */
export function SecretOnce({ label, value, onDone }: { label: string; value: string; onDone?: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret" role="status">
      <p>
        <strong>{label}</strong> — shown once; keep it now.
      </p>
      <code className="secret-value">{value}</code>
      <div className="actions">
        <button
          type="button"
          onClick={() => {
            void navigator.clipboard?.writeText(value).then(() => setCopied(true));
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        {onDone && (
          <button type="button" className="secondary" onClick={onDone}>
            Done
          </button>
        )}
      </div>
    </div>
  );
}

/** Pages of a connection: the next page's cursor, kept in a stack to go back. */
export function usePages(): { after: string | null; next: (cursor: string | null | undefined) => void; previous: (() => void) | null; reset: () => void } {
  const [stack, setStack] = useState<string[]>([]);
  return {
    after: stack.length ? stack[stack.length - 1] : null,
    next: (cursor) => cursor && setStack((s) => [...s, cursor]),
    previous: stack.length ? () => setStack((s) => s.slice(0, -1)) : null,
    reset: () => setStack([]),
  };
}

export function Pager({ pageInfo, pages }: { pageInfo: { hasNextPage: boolean; endCursor?: string | null } | undefined; pages: ReturnType<typeof usePages> }) {
  if (!pageInfo?.hasNextPage && !pages.previous) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="secondary" disabled={!pages.previous} onClick={() => pages.previous?.()}>
        Previous
      </button>
      <button type="button" className="secondary" disabled={!pageInfo?.hasNextPage} onClick={() => pages.next(pageInfo?.endCursor)}>
        Next
      </button>
    </nav>
  );
}

type Pages = ReturnType<typeof usePages>;

/**
 * A filter over a paged list: its value, and a setter that also takes the list back to its first page (a
 * cursor from one filter's pages means nothing in another's).
 */
export function useFilter(pages: Pages, initial = ''): [value: string, set: (value: string) => void] {
  const [value, setValue] = useState(initial);
  return [
    value,
    (next) => {
      pages.reset();
      setValue(next);
    },
  ];
}

/** One page of a connection as a table, and the pager under it. */
export function Paged<T>({
  connection,
  pages,
  ...table
}: {
  connection: { nodes: T[]; pageInfo: { hasNextPage: boolean; endCursor?: string | null } };
  pages: Pages;
  caption: string;
  columns: Column<T>[];
  rowKey: (row: T) => string;
}) {
  return (
    <>
      <Table {...table} rows={connection.nodes} />
      <Pager pageInfo={connection.pageInfo} pages={pages} />
    </>
  );
}

/** A comma-separated field as its items, trimmed, the empty ones dropped. */
export function listOf(text: string): string[] {
  return text
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
}

/** A JSON field's value, or why it is not JSON (named by the field's label, as the person reads it). */
export function parseJson(label: string, text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: `${label} is not JSON: ${(err as Error).message}` };
  }
}

/** Dollars as a person types them ("2.50") in US cents; null when empty, NaN when not a sum. */
export function centsOf(dollars: string): number | null {
  const text = dollars.trim().replace(/^\$/, '');
  if (!text) return null;
  return /^\d+(\.\d{1,2})?$/.test(text) ? Math.round(Number(text) * 100) : Number.NaN;
}

/** A datetime-local field's value as an ISO instant in the person's time zone; null when empty. */
export function instantOf(local: string): string | null {
  return local ? new Date(local).toISOString() : null;
}

/** JSON, readable. */
export function Json({ value }: { value: unknown }) {
  return <pre className="json">{JSON.stringify(value, null, 2)}</pre>;
}

export function LiveBadge({ status }: { status: string }) {
  const text = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', closed: 'Not live' }[status] ?? status;
  return (
    <span className={`live live-${status}`} role="status" aria-live="polite">
      {text}
    </span>
  );
}
