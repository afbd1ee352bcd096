// A webhook's events as the webhook pages show them and read them from a form.
import { listOf } from '../../ui';

export const eventsText = (events: string[]) => (events.includes('*') ? 'all' : events.join(', '));

/** A webhook's events as typed: comma-separated types, or every event (`*`) when empty. */
export function eventsOf(text: string): string[] {
  const events = listOf(text);
  return events.length ? events : ['*'];
}
