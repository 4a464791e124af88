-- A player's personal bests across every board (racectl pbs, the server's
-- profile query) without reading every board's rows.
CREATE INDEX personal_bests_player ON personal_bests (player_id, physics_version);
