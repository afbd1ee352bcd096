// A swarm's progress: its steps finished (and failed) of all, as a bar and as text.

export function Progress({ done, failed, total }: { done: number; failed: number; total: number }) {
  return (
    <span>
      <progress max={total || 1} value={done + failed} aria-label={`${done + failed} of ${total} steps finished`} /> {done + failed}/{total}
      {failed ? `, ${failed} failed` : ''}
    </span>
  );
}
