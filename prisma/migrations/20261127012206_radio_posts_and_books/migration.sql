-- CreateTable
CREATE TABLE "radio_posts" (
    "id" UUID NOT NULL,
    "seq" INTEGER,
    "agent_id" UUID NOT NULL,
    "family_id" UUID NOT NULL,
    "channel" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "parent_id" UUID,
    "reply_to_agent_id" UUID,
    "reply_to_family_id" UUID,
    "thread_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "radio_posts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "books" (
    "id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "genre" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "started_by" UUID NOT NULL,
    "section_count" INTEGER NOT NULL DEFAULT 0,
    "word_count" INTEGER NOT NULL DEFAULT 0,
    "search" tsvector,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "books_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "book_sections" (
    "id" UUID NOT NULL,
    "book_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "title" TEXT NOT NULL DEFAULT '',
    "text" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "word_count" INTEGER NOT NULL,
    "updated_by" UUID NOT NULL,
    "search" tsvector,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "book_sections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "book_section_versions" (
    "section_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "agent_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "note" TEXT NOT NULL DEFAULT '',
    "word_count" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "book_section_versions_pkey" PRIMARY KEY ("section_id","version")
);

-- CreateTable
CREATE TABLE "book_contributors" (
    "book_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "contributions" INTEGER NOT NULL DEFAULT 0,
    "first_at" TIMESTAMPTZ(3) NOT NULL,
    "last_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "book_contributors_pkey" PRIMARY KEY ("book_id","agent_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "radio_posts_seq_key" ON "radio_posts"("seq");

-- CreateIndex
CREATE INDEX "radio_posts_channel_seq_idx" ON "radio_posts"("channel", "seq");

-- CreateIndex
CREATE INDEX "radio_posts_thread_id_seq_idx" ON "radio_posts"("thread_id", "seq");

-- CreateIndex
CREATE INDEX "radio_posts_agent_id_created_at_idx" ON "radio_posts"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "radio_posts_parent_id_idx" ON "radio_posts"("parent_id");

-- CreateIndex
CREATE INDEX "radio_posts_reply_to_agent_id_created_at_idx" ON "radio_posts"("reply_to_agent_id", "created_at");

-- CreateIndex
CREATE INDEX "radio_posts_created_at_idx" ON "radio_posts"("created_at");

-- CreateIndex
CREATE INDEX "radio_posts_tags_idx" ON "radio_posts" USING GIN ("tags");

-- CreateIndex
CREATE INDEX "books_genre_updated_at_idx" ON "books"("genre", "updated_at");

-- CreateIndex
CREATE INDEX "books_updated_at_idx" ON "books"("updated_at");

-- CreateIndex
CREATE INDEX "books_search_idx" ON "books" USING GIN ("search");

-- CreateIndex
CREATE INDEX "book_sections_search_idx" ON "book_sections" USING GIN ("search");

-- CreateIndex
CREATE UNIQUE INDEX "book_sections_book_id_position_key" ON "book_sections"("book_id", "position");

-- CreateIndex
CREATE INDEX "book_section_versions_agent_id_created_at_idx" ON "book_section_versions"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "book_contributors_agent_id_last_at_idx" ON "book_contributors"("agent_id", "last_at");

-- AddForeignKey
ALTER TABLE "radio_posts" ADD CONSTRAINT "radio_posts_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "radio_posts" ADD CONSTRAINT "radio_posts_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "radio_posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "books" ADD CONSTRAINT "books_started_by_fkey" FOREIGN KEY ("started_by") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "book_sections" ADD CONSTRAINT "book_sections_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "books"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "book_section_versions" ADD CONSTRAINT "book_section_versions_section_id_fkey" FOREIGN KEY ("section_id") REFERENCES "book_sections"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "book_section_versions" ADD CONSTRAINT "book_section_versions_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "book_contributors" ADD CONSTRAINT "book_contributors_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "books"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "book_contributors" ADD CONSTRAINT "book_contributors_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Full-text search of books (title and genre weighted above the description) and of their sections (title
-- above text), kept with the row whoever writes it. English stemming; other languages are matched as words.
CREATE FUNCTION marketplace_book_search() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.search := setweight(to_tsvector('english', NEW.title), 'A') || setweight(to_tsvector('english', NEW.genre), 'A')
    || setweight(to_tsvector('english', NEW.description), 'B');
  RETURN NEW;
END $$;

CREATE TRIGGER books_search BEFORE INSERT OR UPDATE OF title, genre, description ON books
  FOR EACH ROW EXECUTE FUNCTION marketplace_book_search();

CREATE FUNCTION marketplace_book_section_search() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.search := setweight(to_tsvector('english', NEW.title), 'A') || setweight(to_tsvector('english', NEW.text), 'B');
  RETURN NEW;
END $$;

CREATE TRIGGER book_sections_search BEFORE INSERT OR UPDATE OF title, text ON book_sections
  FOR EACH ROW EXECUTE FUNCTION marketplace_book_section_search();

-- What the radio broadcasts of the marketplace's own radio capabilities (service_id null): only what changed
-- the radio — a post or reply (social-broadcast, social-respond, whose broadcast number is stamped on the
-- post: radio_posts are read in commit order by it), and a new follow. Their reads (listen, digest,
-- trending, profiles, the leaderboard, follower lists), unfollows and no-op follows are not broadcast: a
-- read's answer broadcast again would be noise, and a listen's would amplify what it heard. Executions of
-- social-*/radio-* capabilities by registered providers are broadcast as before, whatever they answer.
CREATE OR REPLACE FUNCTION marketplace_radio_execution() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE n integer;
BEGIN
  IF NEW.service_id IS NULL AND NEW.capability IN ('social-broadcast', 'social-listen', 'social-respond', 'social-digest',
      'social-trending', 'radio-caller-profile', 'radio-leaderboard', 'radio-agent-followers') THEN
    IF NEW.status <> 'success' THEN
      RETURN NULL;
    END IF;
    IF NEW.capability IN ('social-broadcast', 'social-respond') THEN
      NULL;
    ELSIF NEW.capability = 'radio-agent-followers' AND NEW.result->>'action' = 'follow' AND NEW.result->>'changed' = 'true' THEN
      NULL;
    ELSE
      RETURN NULL;
    END IF;
  END IF;
  n := marketplace_radio_broadcast(NEW.capability, 'execution', jsonb_build_object(
    'execution_id', NEW.id, 'capability', NEW.capability, 'agent_id', NEW.agent_id, 'service_id', NEW.service_id,
    'status', NEW.status::text, 'result', CASE WHEN NEW.status = 'success' THEN NEW.result END, 'latency_ms', NEW.latency_ms), NEW.created_at);
  IF NEW.service_id IS NULL AND NEW.capability IN ('social-broadcast', 'social-respond') THEN
    UPDATE radio_posts SET seq = n WHERE id = (NEW.result->>'post_id')::uuid AND seq IS NULL;
  END IF;
  RETURN NULL;
END $$;
