#!/bin/sh
# Stands in for Prisma's native schema engine, which would be downloaded from the network.
# This project creates and applies migrations with the WASM engine (src/db/migrate.ts) instead.
echo "the native Prisma schema engine is not used: run 'npm run db:migration -- <name>'" >&2
exit 1
