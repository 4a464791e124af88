-- The producer's own id for each lap (the race loop's record id, echoed in
-- the writer's acknowledgement). After a crash the server can look up which
-- of the laps it handed over were committed, and tests match acknowledged
-- laps to rows with it. NULL for laps written without one.
ALTER TABLE laps ADD COLUMN caller_id INTEGER;
CREATE INDEX laps_caller_id ON laps (caller_id) WHERE caller_id IS NOT NULL;
