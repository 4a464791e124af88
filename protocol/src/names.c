/*
 * Player names: the one definition of what a name may hold (SPEC.md
 * section 2, "Player names"). The decoder applies it to every name field,
 * the SDK before it sends a HELLO, the store before it writes a players
 * row; none of them has its own copy, so they cannot drift apart.
 *
 * Why these rules: a name is shown to every player in the room, on
 * leaderboards and in the server's log, next to text the player does not
 * control. A control character breaks a log line or a terminal; a
 * bidirectional control reorders the text after it ("U+202E" turns a name
 * into one that reads backwards and can swallow the time beside it); an
 * invisible character, a space that is not U+0020, or a leading, trailing
 * or doubled space makes a second name that looks exactly like someone
 * else's. Private-use characters and noncharacters have no glyph everyone
 * shares. Everything else Unicode assigns (letters of every script,
 * combining marks, emoji and their variation selectors) is allowed.
 *
 * What is not checked, because it needs Unicode's tables (ICU, UTS #39):
 * case beyond ASCII, normalisation (a precomposed letter and the same
 * letter with a combining mark are two names) and look-alike letters of
 * other scripts. Registered names are bound to a token, which is what
 * proves who a player is.
 */
#include <stdio.h>
#include <string.h>

#include "racesim/base/err.h"
#include "racesim/protocol.h"
#include "wire.h"

typedef struct cp_range {
    uint32_t lo, hi;
} cp_range;

/* Each class the rules refuse, with the words the reason uses. */
static const cp_range controls[] = {{0x0000, 0x001F}, {0x007F, 0x009F}};
static const cp_range line_breaks[] = {{0x2028, 0x2029}};
static const cp_range bidi[] = {
    {0x061C, 0x061C}, /* Arabic letter mark */
    {0x200E, 0x200F}, /* left-to-right and right-to-left marks */
    {0x202A, 0x202E}, /* embeddings, pop, overrides */
    {0x2066, 0x2069}, /* isolates */
};
static const cp_range invisible[] = {
    {0x00AD, 0x00AD},   /* soft hyphen */
    {0x034F, 0x034F},   /* combining grapheme joiner */
    {0x115F, 0x1160},   /* Hangul fillers */
    {0x17B4, 0x17B5},   /* Khmer inherent vowels */
    {0x180E, 0x180E},   /* Mongolian vowel separator */
    {0x200B, 0x200D},   /* zero-width space, non-joiner, joiner */
    {0x2060, 0x2065},   /* word joiner, invisible operators */
    {0x206A, 0x206F},   /* deprecated format controls */
    {0x2800, 0x2800},   /* blank Braille pattern */
    {0x3164, 0x3164},   /* Hangul filler */
    {0xFEFF, 0xFEFF},   /* zero-width no-break space (BOM) */
    {0xFFA0, 0xFFA0},   /* halfwidth Hangul filler */
    {0xFFF9, 0xFFFB},   /* interlinear annotation */
    {0x1D173, 0x1D17A}, /* musical formatting */
    {0xE0000, 0xE007F}, /* tags */
};
static const cp_range other_spaces[] = {
    {0x00A0, 0x00A0}, {0x1680, 0x1680}, {0x2000, 0x200A},
    {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000},
};
static const cp_range private_use[] = {{0xE000, 0xF8FF}, {0xF0000, 0x10FFFF}};

typedef struct char_class {
    const char *what;
    const cp_range *ranges;
    size_t count;
} char_class;

#define CLASS(what, table) {what, table, sizeof table / sizeof table[0]}
static const char_class refused_classes[] = {
    CLASS("control character", controls),
    CLASS("line or paragraph separator", line_breaks),
    CLASS("bidirectional control character", bidi),
    CLASS("invisible character", invisible),
    CLASS("space other than U+0020", other_spaces),
    CLASS("private-use character", private_use),
};
#undef CLASS

/* The words for the class cp belongs to, or NULL when a name may hold it. */
static const char *refused_class(uint32_t cp)
{
    for (size_t k = 0; k < sizeof refused_classes / sizeof refused_classes[0]; k++) {
        const char_class *c = &refused_classes[k];
        for (size_t i = 0; i < c->count; i++)
            if (cp >= c->ranges[i].lo && cp <= c->ranges[i].hi)
                return c->what;
    }
    /* The 66 code points Unicode promises never to assign. */
    if ((cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFEu) == 0xFFFEu)
        return "noncharacter";
    return NULL;
}

bool rs_proto_name_check(const char *name, size_t len, char *why, size_t why_len)
{
    if (!name || len == 0) {
        rs_errf(why, why_len, "player name: empty");
        return false;
    }
    if (len > RS_PROTO_NAME_MAX) {
        rs_errf(why, why_len, "player name: %zu bytes, at most %u", len,
                (unsigned)RS_PROTO_NAME_MAX);
        return false;
    }
    const uint8_t *s = (const uint8_t *)name;
    uint32_t prev = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp = 0;
        size_t n = rs_proto__utf8_next(s + i, len - i, &cp);
        if (n == 0) {
            rs_errf(why, why_len, "player name: invalid UTF-8 at byte %zu", i);
            return false;
        }
        const char *what = refused_class(cp);
        if (what) {
            rs_errf(why, why_len, "player name: %s U+%04X at byte %zu", what, (unsigned)cp, i);
            return false;
        }
        if (cp == ' ' && i == 0) {
            rs_errf(why, why_len, "player name: starts with a space");
            return false;
        }
        if (cp == ' ' && prev == ' ') {
            rs_errf(why, why_len, "player name: two spaces in a row at byte %zu", i - 1);
            return false;
        }
        if (cp == ' ' && i + 1 == len) {
            rs_errf(why, why_len, "player name: ends with a space");
            return false;
        }
        prev = cp;
        i += n;
    }
    return true;
}

static int ascii_lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

bool rs_proto_name_equal(const char *a, const char *b)
{
    /* Byte by byte with ASCII letters folded: exactly SQLite's NOCASE, which
     * keeps players.name unique, so the room, the services and the store
     * agree on which names are one name. */
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    for (;; x++, y++) {
        if (ascii_lower(*x) != ascii_lower(*y))
            return false;
        if (!*x)
            return true;
    }
}
