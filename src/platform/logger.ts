// Structured logs (pino) with credentials redacted wherever they may appear.
import pino, { type Logger } from 'pino';

export type { Logger };

const SECRET = /\b(key_(?:master|admin|service)_)[0-9A-Za-z]{8,}/g;

/** Replaces any key-shaped secret inside a string with its prefix and a marker. */
export function redactSecrets(text: string): string {
  return text.replace(SECRET, '$1[REDACTED]');
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: [
          'authorization',
          '*.authorization',
          'req.headers.authorization',
          'headers.authorization',
          '*.masterKey',
          '*.master_key',
          '*.adminKey',
          '*.secret',
          '*.key',
          'connectionParams.authorization',
        ],
        censor: '[REDACTED]',
      },
      hooks: {
        // A secret pasted into a message (an error text, a URL) is masked too.
        logMethod(args, method) {
          method.apply(this, args.map((a) => (typeof a === 'string' ? redactSecrets(a) : a)) as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}
