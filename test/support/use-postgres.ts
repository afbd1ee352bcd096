// Marks the jest project whose api suite runs on PostgreSQL (DATABASE_URL) instead of PGlite.
process.env.TEST_DATABASE = 'postgres';
