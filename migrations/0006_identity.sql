-- Identity and administration (docs/PERSISTENCE.md, "Players", "Bans",
-- "Audit"): admin rights belong to registered players, a registration
-- completes only once the client confirmed it received its token, a player
-- may rotate their token, bans by player and by address range live here, and
-- every admin action and failed admin attempt is recorded.

-- Admin rights, granted and revoked by the operator (racectl admin). Guest
-- rows ("~" + the guest's name) can never hold them.
ALTER TABLE players ADD COLUMN admin INTEGER NOT NULL DEFAULT 0
    CHECK (admin IN (0, 1) AND (admin = 0 OR substr(name, 1, 1) <> '~'));

-- Two-phase registration: a new registered player's row is made unconfirmed
-- and confirmed when the client acknowledged receipt of its token; a row
-- never confirmed is deleted again (unless it already holds laps, results,
-- tunes or a ban, then it is confirmed). Every existing player, and every
-- guest row, is confirmed.
ALTER TABLE players ADD COLUMN confirmed INTEGER NOT NULL DEFAULT 1
    CHECK (confirmed IN (0, 1));

-- A token rotation in progress: the new token's salt and hash, shaped like
-- token_salt and token_hash. Both or neither. While it is pending both
-- tokens log in; logging in with the new one (or the client's confirmation)
-- makes it the token.
ALTER TABLE players ADD COLUMN pending_salt BLOB
    CHECK (pending_salt IS NULL OR length(pending_salt) = 16);
ALTER TABLE players ADD COLUMN pending_hash BLOB
    CHECK ((pending_hash IS NULL) = (pending_salt IS NULL)
           AND (pending_hash IS NULL OR length(pending_hash) = 32));

-- Player ids are never reused, now that rows of registrations never
-- confirmed are deleted (the newest row, whose id SQLite would hand out
-- again): something still holding a forgotten id (a lap queued for the
-- writer) must not land on the next player. The store gives a new row an id
-- above both the largest in use and the largest ever deleted.
CREATE TABLE players_deleted_max (
    only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
    id INTEGER NOT NULL
);
INSERT INTO players_deleted_max (only_row, id) VALUES (1, 0);
CREATE TRIGGER players_deleted_max_keep AFTER DELETE ON players
BEGIN
    UPDATE players_deleted_max SET id = max(id, old.id);
END;

-- The start-up sweep of registrations never confirmed, and the admin list,
-- read only the few rows concerned.
CREATE INDEX players_unconfirmed ON players (id) WHERE confirmed = 0;
CREATE INDEX players_admins ON players (name COLLATE NOCASE) WHERE admin = 1;

-- Bans: one player (a registered player or a guest row) or one IPv4 network,
-- never both. network is the canonical "a.b.c.d/n" (host bits zero, n at
-- least 8); net_first and net_last are its first and last address as
-- unsigned integers (host byte order), so an address is matched with two
-- comparisons. A ban is active while lifted_at is NULL and expires_at is
-- NULL (permanent) or later than now. Rows are never deleted: a lifted or
-- expired ban stays as history.
CREATE TABLE bans (
    id INTEGER PRIMARY KEY,
    player_id INTEGER REFERENCES players(id),
    network TEXT CHECK (network IS NULL OR length(network) BETWEEN 9 AND 18),
    net_first INTEGER,
    net_last INTEGER,
    reason TEXT NOT NULL CHECK (length(CAST(reason AS BLOB)) BETWEEN 1 AND 200),
    created_at INTEGER NOT NULL,
    created_by TEXT NOT NULL CHECK (length(CAST(created_by AS BLOB)) BETWEEN 1 AND 80),
    expires_at INTEGER,           -- NULL = never
    lifted_at INTEGER,            -- NULL = not lifted
    lifted_by TEXT CHECK (lifted_by IS NULL OR length(CAST(lifted_by AS BLOB)) BETWEEN 1 AND 80),
    CHECK ((player_id IS NULL) <> (network IS NULL)),
    CHECK ((network IS NULL) = (net_first IS NULL) AND (network IS NULL) = (net_last IS NULL)),
    CHECK (net_first IS NULL OR (net_first >= 0 AND net_last >= net_first
                                 AND net_last <= 4294967295)),
    CHECK (expires_at IS NULL OR expires_at > created_at),
    CHECK ((lifted_at IS NULL) = (lifted_by IS NULL))
);
-- A player's bans (and the foreign-key check when a guest row is pruned).
CREATE INDEX bans_player ON bans (player_id);
-- Address matching looks only at networks not lifted.
CREATE INDEX bans_network ON bans (net_first, net_last)
    WHERE network IS NOT NULL AND lifted_at IS NULL;

-- A number that grows whenever a ban row is added, changed or deleted, by
-- any connection (racectl's included), so a server notices new and lifted
-- bans by reading one row.
CREATE TABLE bans_version (
    only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
    version INTEGER NOT NULL
);
INSERT INTO bans_version (only_row, version) VALUES (1, 0);
CREATE TRIGGER bans_version_insert AFTER INSERT ON bans
BEGIN
    UPDATE bans_version SET version = version + 1;
END;
CREATE TRIGGER bans_version_update AFTER UPDATE ON bans
BEGIN
    UPDATE bans_version SET version = version + 1;
END;
CREATE TRIGGER bans_version_delete AFTER DELETE ON bans
BEGIN
    UPDATE bans_version SET version = version + 1;
END;

-- Every admin action and every failed admin attempt: when (unix seconds),
-- who (a player's name, or "racectl:<user>"), from where (the peer's
-- address, or "local"), what, on whom or what, and how it ended. The store
-- keeps the newest rows (RS_STORE_AUDIT_KEEP in racesim/identity.h) so a
-- flood of failed attempts cannot fill the disk.
CREATE TABLE audit (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    actor TEXT NOT NULL,
    address TEXT NOT NULL,
    action TEXT NOT NULL CHECK (length(action) >= 1),
    target TEXT NOT NULL,
    result TEXT NOT NULL
);
CREATE INDEX audit_at ON audit (at);
