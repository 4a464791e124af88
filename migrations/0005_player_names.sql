-- Player names follow one set of rules from this version on:
-- rs_proto_name_check (protocol/src/names.c; protocol/SPEC.md section 2,
-- "Player names"), applied by the decoder to every HELLO and by the store to
-- every new players row. Rows written before could break them (the store
-- refused only C0 controls and DEL): a bidirectional override, an invisible
-- character, a space other than U+0020, a space at either end or two in a
-- row. Such a player could no longer connect (the server refuses the HELLO)
-- and the name would not encode in a leaderboard reply, so each such row is
-- renamed here, and the rename recorded in player_renames:
--   - to the name without the characters the rules refuse, runs of spaces
--     made one and spaces at the ends trimmed (what the player sees of their
--     name, so what they will type), when nobody has that name (ASCII case
--     ignored, as always);
--   - otherwise to 'renamed-<id>', or '~renamed-<id>' for a guest row.
-- A registered player keeps their token and connects with the new name.
-- Invalid UTF-8 is not looked for: every name came through the decoder's
-- UTF-8 check. A row whose fallback name is taken too keeps its name; the
-- server shows it as "(player <id>)" in leaderboard replies.
-- tests/test_names.c runs names.c's table of names through this file and
-- checks that exactly the names names.c refuses are renamed, to names it
-- accepts.
-- Also: a player's race results by player, so deleting a player row (the
-- store prunes guest rows that hold no lap, docs/PERSISTENCE.md "Guest
-- rows") checks and removes its results through an index, not a scan.
CREATE INDEX race_results_player ON race_results (player_id);

CREATE TABLE player_renames (
    player_id INTEGER PRIMARY KEY REFERENCES players(id) ON DELETE CASCADE,
    old_name TEXT NOT NULL,
    new_name TEXT NOT NULL,
    renamed_at INTEGER NOT NULL
);

-- The characters names.c refuses anywhere in a name, as one GLOB class of
-- code point ranges; but U+FFFE and U+FFFF, which GLOB reads as U+FFFD (a
-- letter names may hold), are looked for byte by byte with instr.
CREATE TEMP TABLE name_rule (refused TEXT NOT NULL);
INSERT INTO temp.name_rule (refused) VALUES ('[' ||
    char(0x1) || '-' || char(0x1F) ||              -- control characters (U+0000 cannot be stored)
    char(0x7F) || '-' || char(0x9F) ||             -- DEL and C1 controls
    char(0xA0) ||                                  -- no-break space
    char(0xAD) ||                                  -- soft hyphen
    char(0x34F) ||                                 -- combining grapheme joiner
    char(0x61C) ||                                 -- Arabic letter mark
    char(0x115F) || '-' || char(0x1160) ||         -- Hangul fillers
    char(0x1680) ||                                -- Ogham space mark
    char(0x17B4) || '-' || char(0x17B5) ||         -- Khmer inherent vowels
    char(0x180E) ||                                -- Mongolian vowel separator
    char(0x2000) || '-' || char(0x200F) ||         -- spaces, zero-width characters, LRM, RLM
    char(0x2028) || '-' || char(0x202F) ||         -- line/paragraph separators, embeddings,
                                                   -- overrides, narrow no-break space
    char(0x205F) || '-' || char(0x206F) ||         -- medium mathematical space, word joiner,
                                                   -- invisible operators, isolates
    char(0x2800) ||                                -- blank Braille pattern
    char(0x3000) ||                                -- ideographic space
    char(0x3164) ||                                -- Hangul filler
    char(0xE000) || '-' || char(0xF8FF) ||         -- private use
    char(0xFDD0) || '-' || char(0xFDEF) ||         -- noncharacters
    char(0xFEFF) ||                                -- zero-width no-break space
    char(0xFFA0) ||                                -- halfwidth Hangul filler
    char(0xFFF9) || '-' || char(0xFFFB) ||         -- interlinear annotation
    char(0x1D173) || '-' || char(0x1D17A) ||       -- musical formatting
    char(0x1FFFE) || '-' || char(0x1FFFF) ||       -- noncharacters of planes 1..13
    char(0x2FFFE) || '-' || char(0x2FFFF) ||
    char(0x3FFFE) || '-' || char(0x3FFFF) ||
    char(0x4FFFE) || '-' || char(0x4FFFF) ||
    char(0x5FFFE) || '-' || char(0x5FFFF) ||
    char(0x6FFFE) || '-' || char(0x6FFFF) ||
    char(0x7FFFE) || '-' || char(0x7FFFF) ||
    char(0x8FFFE) || '-' || char(0x8FFFF) ||
    char(0x9FFFE) || '-' || char(0x9FFFF) ||
    char(0xAFFFE) || '-' || char(0xAFFFF) ||
    char(0xBFFFE) || '-' || char(0xBFFFF) ||
    char(0xCFFFE) || '-' || char(0xCFFFF) ||
    char(0xDFFFE) || '-' || char(0xDFFFF) ||
    char(0xE0000) || '-' || char(0xE007F) ||       -- tags
    char(0xEFFFE) || '-' || char(0xEFFFF) ||       -- noncharacters of plane 14
    char(0xF0000) || '-' || char(0x10FFFF) ||      -- private use (planes 15 and 16)
    ']');

-- The rows that break a rule, and what they are called without it.
CREATE TEMP TABLE name_fix (id INTEGER PRIMARY KEY, old_name TEXT NOT NULL, cleaned TEXT);
INSERT INTO temp.name_fix (id, old_name)
SELECT p.id, p.name FROM players p, temp.name_rule r
WHERE length(CAST(p.name AS BLOB)) NOT BETWEEN 1 AND 32
   OR p.name GLOB ('*' || r.refused || '*')
   OR instr(p.name, char(0xFFFE)) > 0 OR instr(p.name, char(0xFFFF)) > 0
   OR p.name GLOB ' *' OR p.name GLOB '* ' OR p.name GLOB '*  *';

-- Character by character (substr counts characters), dropping the refused.
WITH RECURSIVE walk (id, rest, kept) AS (
    SELECT id, old_name, '' FROM temp.name_fix
    UNION ALL
    SELECT id, substr(rest, 2),
           kept || CASE WHEN substr(rest, 1, 1) GLOB (SELECT refused FROM temp.name_rule)
                        THEN '' ELSE substr(rest, 1, 1) END
    FROM walk WHERE rest <> ''
)
UPDATE temp.name_fix
SET cleaned = (SELECT kept FROM walk WHERE walk.id = name_fix.id AND walk.rest = '');

-- Runs of up to 32 spaces made one (each pass halves them), ends trimmed;
-- nothing left (or only a guest row's "~"), or too long: no cleaned name.
UPDATE temp.name_fix
SET cleaned = trim(replace(replace(replace(replace(replace(
                  replace(replace(cleaned, char(0xFFFE), ''), char(0xFFFF), ''),
                  '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' '), ' ');
UPDATE temp.name_fix SET cleaned = NULL
WHERE cleaned IN ('', '~') OR length(CAST(cleaned AS BLOB)) > 32;

-- The cleaned name where nobody has it (OR IGNORE skips a row whose new name
-- is taken, by another row or by an earlier row of this update) ...
UPDATE OR IGNORE players
SET name = (SELECT f.cleaned FROM temp.name_fix f WHERE f.id = players.id)
WHERE id IN (SELECT id FROM temp.name_fix WHERE cleaned IS NOT NULL);

-- ... else the fallback.
UPDATE OR IGNORE players
SET name = CASE WHEN substr(name, 1, 1) = '~' THEN '~' ELSE '' END || 'renamed-' || id
WHERE id IN (SELECT f.id FROM temp.name_fix f
             WHERE f.id = players.id AND f.old_name = players.name COLLATE BINARY);

INSERT INTO player_renames (player_id, old_name, new_name, renamed_at)
SELECT p.id, f.old_name, p.name, CAST(strftime('%s', 'now') AS INTEGER)
FROM players p JOIN temp.name_fix f ON f.id = p.id
WHERE p.name <> f.old_name COLLATE BINARY;

DROP TABLE temp.name_fix;
DROP TABLE temp.name_rule;
