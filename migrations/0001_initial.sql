-- The first schema: players, car and track definitions, tunes, races and
-- results, laps with their proofs, and the personal bests that make
-- leaderboards fast. 64-bit hashes are stored as SQLite INTEGER (the
-- unsigned value's two's-complement bits). Times are integer microseconds;
-- timestamps are unix seconds (UTC).

CREATE TABLE players (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE
        CHECK (length(name) BETWEEN 1 AND 32),
    token_salt BLOB NOT NULL CHECK (length(token_salt) = 16),
    token_hash BLOB NOT NULL CHECK (length(token_hash) = 32),
    created_at INTEGER NOT NULL
);

-- Every car parameter block a lap was driven with (stock or tuned), so any
-- lap can be rebuilt and re-simulated.
CREATE TABLE cars (
    id INTEGER PRIMARY KEY,
    params_hash INTEGER NOT NULL UNIQUE,
    name TEXT NOT NULL,
    base_hash INTEGER NOT NULL,   -- the stock definition it was tuned from (itself if stock)
    block BLOB NOT NULL
);

CREATE TABLE tracks (
    id INTEGER PRIMARY KEY,
    track_hash INTEGER NOT NULL UNIQUE,
    name TEXT NOT NULL,
    definition TEXT NOT NULL      -- the track JSON it was loaded from
);

CREATE TABLE tunes (
    id INTEGER PRIMARY KEY,
    player_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
    base_hash INTEGER NOT NULL,   -- stock car definition the tune applies to
    name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
    tune_hash INTEGER NOT NULL,   -- content hash of the canonical tune
    params_hash INTEGER NOT NULL, -- hash of the tuned car's parameter block
    json TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (player_id, base_hash, name)
);

CREATE TABLE races (
    id INTEGER PRIMARY KEY,
    track_id INTEGER NOT NULL REFERENCES tracks(id),
    laps INTEGER NOT NULL CHECK (laps >= 0),
    physics_version INTEGER NOT NULL,
    forced_tune_hash INTEGER,     -- NULL: players choose
    started_at INTEGER NOT NULL,
    finished_at INTEGER
);

CREATE TABLE race_results (
    race_id INTEGER NOT NULL REFERENCES races(id) ON DELETE CASCADE,
    player_id INTEGER NOT NULL REFERENCES players(id),
    car_id INTEGER NOT NULL REFERENCES cars(id),
    position INTEGER NOT NULL CHECK (position >= 1),
    finished INTEGER NOT NULL CHECK (finished IN (0, 1)),
    finish_us INTEGER,
    laps_completed INTEGER NOT NULL,
    best_lap_us INTEGER,
    barrier_hits INTEGER NOT NULL,
    car_hits INTEGER NOT NULL,
    PRIMARY KEY (race_id, player_id)
);

CREATE TABLE laps (
    id INTEGER PRIMARY KEY,
    player_id INTEGER NOT NULL REFERENCES players(id),
    track_id INTEGER NOT NULL REFERENCES tracks(id),
    car_id INTEGER NOT NULL REFERENCES cars(id),
    base_hash INTEGER NOT NULL,   -- stock car (leaderboards group by it)
    tune_hash INTEGER NOT NULL,   -- 0 = stock
    physics_version INTEGER NOT NULL,
    race_id INTEGER REFERENCES races(id),
    lap_number INTEGER NOT NULL CHECK (lap_number >= 1),
    time_us INTEGER NOT NULL CHECK (time_us > 0),
    sectors_us TEXT NOT NULL,     -- JSON array of integers, -1 = skipped
    valid INTEGER NOT NULL CHECK (valid IN (0, 1)),
    invalid_reason INTEGER NOT NULL,
    end_hash INTEGER NOT NULL,    -- the car's state hash at the end of the lap's tick
    recorded_at INTEGER NOT NULL
);
CREATE INDEX laps_player_recent ON laps (player_id, recorded_at DESC, id DESC);
CREATE INDEX laps_recent ON laps (track_id, base_hash, physics_version, recorded_at DESC, id DESC);

-- The exact world snapshot the lap started from and every car's input from
-- then to the lap's end, zlib-compressed (docs/PERSISTENCE.md has the
-- format), so `racectl verify-lap` can re-simulate it bit for bit.
CREATE TABLE lap_proofs (
    lap_id INTEGER PRIMARY KEY REFERENCES laps(id) ON DELETE CASCADE,
    format INTEGER NOT NULL,
    raw_size INTEGER NOT NULL,
    data BLOB NOT NULL
);

-- Personal bests: one row per (board, player), kept by the writer in the
-- same transaction as the lap. A board is a track, a stock car, a physics
-- version and a tune key: the tune's hash, or 0 for "any tune".
CREATE TABLE personal_bests (
    track_id INTEGER NOT NULL REFERENCES tracks(id),
    base_hash INTEGER NOT NULL,
    physics_version INTEGER NOT NULL,
    tune_key INTEGER NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id),
    lap_id INTEGER NOT NULL REFERENCES laps(id),
    time_us INTEGER NOT NULL,
    PRIMARY KEY (track_id, base_hash, physics_version, tune_key, player_id)
) WITHOUT ROWID;
CREATE INDEX personal_bests_rank
    ON personal_bests (track_id, base_hash, physics_version, tune_key, time_us, lap_id);
