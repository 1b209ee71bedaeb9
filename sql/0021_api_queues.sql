-- 0021: queues made through the Cloud Tasks API live beside queue.xml's.
--
-- A queue is the file's (queue.xml / queue.yaml, written by the owner of the
-- definitions at start-up or by config sync) or the API's (queues.create).
-- A deploy of the file writes and retires only the file's queues; a name
-- defined in both is refused naming it. An API-made queue that is deleted
-- keeps its row, inactive, with the time of the delete: its name is held
-- (as Cloud Tasks holds it) until the tombstone retention has passed.
ALTER TABLE queues ADD COLUMN source text NOT NULL DEFAULT 'file';
ALTER TABLE queues ADD CONSTRAINT queues_source_check CHECK (source IN ('file', 'api'));
ALTER TABLE queues ADD COLUMN deleted_at timestamptz;

COMMENT ON COLUMN queues.source IS 'Who defines the queue: file (queue.xml/queue.yaml) or api (Cloud Tasks queues.create).';
COMMENT ON COLUMN queues.deleted_at IS 'When an API-made queue was deleted (its name is held for a while); NULL otherwise.';

-- Every change of an API-made queue (create, patch, delete) adds one to the
-- service_settings row api_queues_version in its own transaction; each
-- server process reads that row once a second and reloads the API-made
-- queues when it moved. The row lock orders the changes as they commit.
INSERT INTO service_settings (name, value) VALUES ('api_queues_version', 0) ON CONFLICT (name) DO NOTHING;
