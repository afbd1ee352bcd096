-- Hybrid search of vector stores (src/domain/memory/hybrid.ts): the words of each entry of a vector store
-- (its key and the strings of its value, English), for full-text relevance fused with vector similarity.
-- An expression index, which schema.prisma cannot state (Prisma's schema engine leaves it out of the diff).
CREATE INDEX "memory_entries_text_idx" ON "memory_entries" USING GIN ((to_tsvector('english'::regconfig, "key") || to_tsvector('english'::regconfig, "value"))) WHERE "embedding" IS NOT NULL;
