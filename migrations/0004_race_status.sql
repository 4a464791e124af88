-- A race's outcome, so that no race stays "running" for ever:
--   running      being raced now;
--   finished     decided: every car's result is stored, finished_at is set;
--   stopped      the operator stopped the server (SIGTERM/SIGINT) during it:
--                the classification at that moment is stored (cars that had
--                not taken the flag with finished = 0), finished_at is set;
--   interrupted  the server died during it (SIGKILL, crash, power loss): the
--                restarted server found it still running and marked it. Its
--                recorded laps are kept; it has no results, finished_at is NULL;
--   abandoned    called off before lights out: no laps, no results.
-- Races recorded before this migration are 'finished' when they have a
-- finish time and 'interrupted' otherwise.
ALTER TABLE races ADD COLUMN status TEXT NOT NULL DEFAULT 'running'
    CHECK (status IN ('running', 'finished', 'stopped', 'interrupted', 'abandoned'));
UPDATE races SET status = CASE WHEN finished_at IS NULL THEN 'interrupted' ELSE 'finished' END;
-- Start-up looks for races left running by a server that died.
CREATE INDEX races_running ON races (id) WHERE status = 'running';
