// Imported first by the server process: libraries read NODE_ENV once, when they load. Unset, the server
// runs as production (graphql-js then skips its development-only checks on every type test, a few
// percent of a request); tests and tools set their own.
process.env.NODE_ENV ??= 'production';
