/*
 * Player names and chat text: the one definition of what each may hold
 * (SPEC.md section 2, "Player names" and "Text"). The decoder applies them
 * to every name and chat field, the SDK before it sends a HELLO or a CHAT,
 * the store before it writes a players row; none of them has its own copy,
 * so they cannot drift apart. Both walk the same character classes below;
 * text is refused fewer of them.
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
 * Chat text is read, not compared: nobody can be impersonated by a line
 * that looks like another, so invisible characters, other spaces, doubled
 * spaces and private-use characters pass. What still breaks the screen or
 * the log is refused as in a name: controls (a newline forges a second
 * chat line, a tab or an escape a terminal's layout), line and paragraph
 * separators (the same, for Unicode-aware views), bidirectional controls
 * (an override makes a line read as something else, and runs on into the
 * next line in views that do not isolate it) and noncharacters.
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
    bool in_text;   /* chat text may hold it (names never do) */
} char_class;

#define CLASS(what, table, in_text) {what, table, sizeof table / sizeof table[0], in_text}
static const char_class refused_classes[] = {
    CLASS("control character", controls, false),
    CLASS("line or paragraph separator", line_breaks, false),
    CLASS("bidirectional control character", bidi, false),
    CLASS("invisible character", invisible, true),
    CLASS("space other than U+0020", other_spaces, true),
    CLASS("private-use character", private_use, true),
};
#undef CLASS

/* The words for the class cp belongs to, or NULL when a name (text: chat
 * text) may hold it. */
static const char *refused_class(uint32_t cp, bool text)
{
    for (size_t k = 0; k < sizeof refused_classes / sizeof refused_classes[0]; k++) {
        const char_class *c = &refused_classes[k];
        if (text && c->in_text)
            continue;
        for (size_t i = 0; i < c->count; i++)
            if (cp >= c->ranges[i].lo && cp <= c->ranges[i].hi)
                return c->what;
    }
    /* The 66 code points Unicode promises never to assign. */
    if ((cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFEu) == 0xFFFEu)
        return "noncharacter";
    return NULL;
}

/* The rules both kinds share: what (the words a refusal starts with) of
 * 1..max bytes of well-formed UTF-8 without a refused character; a name
 * also has its spaces checked. */
static bool check(const char *what, const char *s8, size_t len, size_t max, bool text, char *why,
                  size_t why_len)
{
    if (!s8 || len == 0) {
        rs_errf(why, why_len, "%s: empty", what);
        return false;
    }
    if (len > max) {
        rs_errf(why, why_len, "%s: %zu bytes, at most %zu", what, len, max);
        return false;
    }
    const uint8_t *s = (const uint8_t *)s8;
    uint32_t prev = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp = 0;
        size_t n = rs_proto__utf8_next(s + i, len - i, &cp);
        if (n == 0) {
            rs_errf(why, why_len, "%s: invalid UTF-8 at byte %zu", what, i);
            return false;
        }
        const char *bad = refused_class(cp, text);
        if (bad) {
            rs_errf(why, why_len, "%s: %s U+%04X at byte %zu", what, bad, (unsigned)cp, i);
            return false;
        }
        if (!text && cp == ' ' && i == 0) {
            rs_errf(why, why_len, "%s: starts with a space", what);
            return false;
        }
        if (!text && cp == ' ' && prev == ' ') {
            rs_errf(why, why_len, "%s: two spaces in a row at byte %zu", what, i - 1);
            return false;
        }
        if (!text && cp == ' ' && i + 1 == len) {
            rs_errf(why, why_len, "%s: ends with a space", what);
            return false;
        }
        prev = cp;
        i += n;
    }
    return true;
}

bool rs_proto_name_check(const char *name, size_t len, char *why, size_t why_len)
{
    return check("player name", name, len, RS_PROTO_NAME_MAX, false, why, why_len);
}

bool rs_proto_text_check(const char *text, size_t len, char *why, size_t why_len)
{
    return check("text", text, len, RS_PROTO_TEXT_MAX, true, why, why_len);
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
