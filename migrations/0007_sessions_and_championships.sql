-- Race weekends: a races row is one session of a room's weekend, and its
-- results are the room's classification (docs/SERVER.md, "Race lifecycle";
-- docs/RESULTS.md).
--
-- races:
--   session_type   practice, qualifying, warmup or race;
--   session_index  its place in the weekend (0..15);
--   weekend        the room's weekend number (1..; 0 = not known);
--   room           the room's name (NULL = not known).
-- Races stored before this migration were single races of a room whose name
-- was not kept: 'race', index 0, weekend 0, room NULL.
ALTER TABLE races ADD COLUMN session_type TEXT NOT NULL DEFAULT 'race'
    CHECK (session_type IN ('practice', 'qualifying', 'warmup', 'race'));
ALTER TABLE races ADD COLUMN session_index INTEGER NOT NULL DEFAULT 0
    CHECK (session_index BETWEEN 0 AND 15);
ALTER TABLE races ADD COLUMN weekend INTEGER NOT NULL DEFAULT 0 CHECK (weekend >= 0);
ALTER TABLE races ADD COLUMN room TEXT;

-- race_results:
--   status          classified, not_classified, disqualified (the room's
--                   classification, protocol.h rs_proto_result_row);
--   class_name      the car's class ('' = the room has no classes);
--   class_position  its place in its class (a room without classes has one);
--   penalty_ms      time penalties counted in the position;
--   laps_led        laps it completed in the lead;
--   car_number      its race number (NULL = none);
--   fastest_lap     1 for the holder of the session's fastest valid lap.
-- Old rows: classified iff finished, class position = position, no class,
-- no penalties; the fastest lap is the smallest best lap of the race (ties:
-- the better position), as nothing else was kept.
ALTER TABLE race_results ADD COLUMN status TEXT NOT NULL DEFAULT 'classified'
    CHECK (status IN ('classified', 'not_classified', 'disqualified'));
ALTER TABLE race_results ADD COLUMN class_name TEXT NOT NULL DEFAULT '';
ALTER TABLE race_results ADD COLUMN class_position INTEGER NOT NULL DEFAULT 1
    CHECK (class_position >= 1);
ALTER TABLE race_results ADD COLUMN penalty_ms INTEGER NOT NULL DEFAULT 0
    CHECK (penalty_ms >= 0);
ALTER TABLE race_results ADD COLUMN laps_led INTEGER NOT NULL DEFAULT 0 CHECK (laps_led >= 0);
ALTER TABLE race_results ADD COLUMN car_number INTEGER;
ALTER TABLE race_results ADD COLUMN fastest_lap INTEGER NOT NULL DEFAULT 0
    CHECK (fastest_lap IN (0, 1));
UPDATE race_results SET
    status = CASE finished WHEN 1 THEN 'classified' ELSE 'not_classified' END,
    class_position = position;
UPDATE race_results SET fastest_lap = 1
 WHERE best_lap_us IS NOT NULL
   AND NOT EXISTS (SELECT 1 FROM race_results AS o
                    WHERE o.race_id = race_results.race_id AND o.best_lap_us IS NOT NULL
                      AND (o.best_lap_us < race_results.best_lap_us
                           OR (o.best_lap_us = race_results.best_lap_us
                               AND o.position < race_results.position)));

-- Championship standings are computed from these rows (racesim/standings.h):
-- the finished sessions of a room, in order.
CREATE INDEX races_room ON races (room, id) WHERE room IS NOT NULL;
