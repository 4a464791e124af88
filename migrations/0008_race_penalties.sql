-- Race control's individual penalties of each stored session (docs/SERVER.md,
-- "Race control"; docs/RESULTS.md): one row per penalty the room gave a
-- car, kept with that car's race_results row (written in the same
-- transaction, and gone with it).
--
--   penalty_id            its id in the session (PENALTY.id: 1, 2, ...);
--   kind                  time, dsq or warning (a warning is a strike the
--                         players saw; it counts for nothing);
--   offence               track_limits, contact, jump_start (race control)
--                         or admin (an administrator gave it);
--   seconds               a time penalty's seconds, else 0;
--   tick, race_time_us    the world's tick and race clock when it was given
--                         (the clock is negative in a race's countdown);
--   removed               1: an administrator took it back, and it counts
--                         for nothing; removed_reason, removed_tick and
--                         removed_race_time_us say why and when (NULL while
--                         it stands).
-- race_results.penalty_ms stays the total that counted in the position:
-- the time penalties not removed.
-- Sessions stored before this migration kept only that total: they have no
-- rows here.
CREATE TABLE race_penalties (
    race_id INTEGER NOT NULL,
    penalty_id INTEGER NOT NULL CHECK (penalty_id >= 1),
    player_id INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('time', 'dsq', 'warning')),
    offence TEXT NOT NULL CHECK (offence IN ('track_limits', 'contact', 'jump_start', 'admin')),
    seconds INTEGER NOT NULL CHECK (seconds BETWEEN 0 AND 3600),
    reason TEXT NOT NULL,
    tick INTEGER NOT NULL CHECK (tick >= 0),
    race_time_us INTEGER NOT NULL,
    removed INTEGER NOT NULL DEFAULT 0 CHECK (removed IN (0, 1)),
    removed_reason TEXT,
    removed_tick INTEGER,
    removed_race_time_us INTEGER,
    PRIMARY KEY (race_id, penalty_id),
    FOREIGN KEY (race_id, player_id) REFERENCES race_results (race_id, player_id)
        ON DELETE CASCADE,
    CHECK ((kind = 'time') = (seconds > 0)),
    CHECK ((removed = 1) = (removed_reason IS NOT NULL AND removed_tick IS NOT NULL
                            AND removed_race_time_us IS NOT NULL))
);
-- A result's penalties (the foreign key's lookups, racectl results).
CREATE INDEX race_penalties_result ON race_penalties (race_id, player_id, penalty_id);
