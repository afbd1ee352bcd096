-- A radio broadcast is announced on the `marketplace_radio` channel (its number as the payload) when its
-- transaction commits, so every instance's readers get it at once, whatever statement wrote it.
CREATE OR REPLACE FUNCTION marketplace_radio_broadcast(p_channel text, p_type text, p_data jsonb, p_at timestamptz) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE n integer;
BEGIN
  UPDATE radio_stream SET last_seq = last_seq + 1 WHERE id = 1 RETURNING last_seq INTO n;
  INSERT INTO radio_events (seq, event_id, channel, type, data, created_at)
  VALUES (n, 'rev_' || replace(gen_random_uuid()::text, '-', ''), p_channel, p_type, p_data, p_at);
  PERFORM pg_notify('marketplace_radio', n::text);
  RETURN n;
END $$;
