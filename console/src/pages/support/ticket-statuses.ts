// A support ticket's statuses, as the tickets' filter and a ticket's move offer them.

export const TICKET_STATUSES: [string, string][] = [
  ['open', 'Open'],
  ['in_progress', 'In progress'],
  ['waiting', 'Waiting'],
  ['resolved', 'Resolved'],
  ['closed', 'Closed'],
];
