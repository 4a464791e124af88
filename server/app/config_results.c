/*
 * Championships in raceserver's configuration file (docs/RESULTS.md):
 *
 *   "championships": [
 *     {"name": "Club Cup", "rooms": ["sprint", "endurance"],
 *      "sessions": ["race"], "points": [25, 18, 15, 12, 10, 8, 6, 4, 2, 1],
 *      "pole_points": 1, "fastest_lap_points": 1}
 *   ]
 *
 * name (by the player-name rules, unique) and rooms (1..16 configured room
 * names) are required; sessions (the session types that score, default
 * ["race"]), points (1..64 values 0..1000 by position, default the one
 * above), pole_points and fastest_lap_points (0..1000, default 0) are not.
 * Standings are computed from the stored results (racesim/championship.h).
 */
#include "config_json.h"

#include <stdio.h>
#include <string.h>

#include "racesim/store.h"

static bool j_sessions(const jctx *j, const cJSON *it, const char *field, uint32_t *mask)
{
    if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) < 1)
        return jfail(j, field, "must be a non-empty array of session types");
    *mask = 0;
    int i = 0;
    for (const cJSON *s = it->child; s; s = s->next, i++) {
        int t = cJSON_IsString(s) ? rs_store_session_type_parse(s->valuestring) : -1;
        if (t < 0)
            return jfail(j, field, "[%d] must be one of practice, qualifying, warmup, race", i);
        *mask |= 1u << (unsigned)t;
    }
    return true;
}

static bool j_points(const jctx *j, const cJSON *it, const char *field, rs_cfg_championship *ch)
{
    int n = cJSON_IsArray(it) ? cJSON_GetArraySize(it) : -1;
    if (n < 1 || n > 64)
        return jfail(j, field, "must be an array of 1..64 points by position");
    int i = 0;
    for (const cJSON *p = it->child; p; p = p->next, i++) {
        char f[128];
        snprintf(f, sizeof f, "%s[%d]", field, i);
        if (!j_u32(j, p, f, 0, 1000, &ch->points[i]))
            return false;
    }
    ch->points_count = (uint32_t)n;
    return true;
}

static bool j_rooms_list(const jctx *j, const cJSON *it, const char *field,
                         rs_cfg_championship *ch)
{
    int n = cJSON_IsArray(it) ? cJSON_GetArraySize(it) : -1;
    if (n < 1 || n > 16)
        return jfail(j, field, "must be an array of 1..16 room names");
    int i = 0;
    for (const cJSON *r = it->child; r; r = r->next, i++) {
        char f[128];
        snprintf(f, sizeof f, "%s[%d]", field, i);
        if (!j_str(j, r, f, 1, 32, ch->rooms[i], sizeof ch->rooms[i]))
            return false;
    }
    ch->room_count = (uint32_t)n;
    return true;
}

static bool j_championship(const jctx *j, const cJSON *o, const char *base,
                           rs_cfg_championship *ch)
{
    if (!cJSON_IsObject(o))
        return jfail(j, base, "must be an object");
    memset(ch, 0, sizeof *ch);
    for (const cJSON *it = o->child; it; it = it->next) {
        char field[96];
        snprintf(field, sizeof field, "%s.%s", base, it->string);
        const char *k = it->string;
        bool ok;
        if (strcmp(k, "name") == 0) {
            ok = j_str(j, it, field, 1, 32, ch->name, sizeof ch->name);
            if (ok && !rs_proto_name_check(ch->name, strlen(ch->name), NULL, 0))
                ok = jfail(j, field, "must follow the player-name rules (docs/PROTOCOL.md)");
        } else if (strcmp(k, "rooms") == 0) {
            ok = j_rooms_list(j, it, field, ch);
        } else if (strcmp(k, "sessions") == 0) {
            ok = j_sessions(j, it, field, &ch->session_types);
        } else if (strcmp(k, "points") == 0) {
            ok = j_points(j, it, field, ch);
        } else if (strcmp(k, "pole_points") == 0) {
            ok = j_u32(j, it, field, 0, 1000, &ch->pole_points);
        } else if (strcmp(k, "fastest_lap_points") == 0) {
            ok = j_u32(j, it, field, 0, 1000, &ch->fastest_lap_points);
        } else {
            ok = jfail(j, field, "unknown key");
        }
        if (!ok)
            return false;
    }
    if (!ch->name[0])
        return jfail(j, base, "needs a \"name\"");
    if (!ch->room_count)
        return jfail(j, base, "needs \"rooms\"");
    return true;
}

bool rs_cfg_json_championships(const jctx *j, const cJSON *it, rs_server_config *c)
{
    int n = cJSON_IsArray(it) ? cJSON_GetArraySize(it) : -1;
    if (n < 0 || n > (int)RS_CFG_MAX_CHAMPIONSHIPS)
        return jfail(j, "championships", "must be an array of 0..%u championships",
                     (unsigned)RS_CFG_MAX_CHAMPIONSHIPS);
    int i = 0;
    for (const cJSON *o = it->child; o; o = o->next, i++) {
        char base[48];
        snprintf(base, sizeof base, "championships[%d]", i);
        if (!j_championship(j, o, base, &c->championships[i]))
            return false;
        for (int k = 0; k < i; k++)
            if (rs_proto_name_equal(c->championships[k].name, c->championships[i].name))
                return jfail(j, base, "'%s' is already the name of championships[%d]",
                             c->championships[i].name, k);
    }
    c->championship_count = (uint32_t)n;
    return true;
}

bool rs_cfg_championships_check(const rs_server_config *c, char *err, size_t err_len)
{
    for (uint32_t i = 0; i < c->championship_count; i++) {
        const rs_cfg_championship *ch = &c->championships[i];
        for (uint32_t k = 0; k < ch->room_count; k++) {
            bool found = false;
            for (uint32_t r = 0; r < c->room_count && !found; r++)
                found = strcmp(c->rooms[r].name, ch->rooms[k]) == 0;
            if (!found) {
                rs_errf(err, err_len, "championships[%u].rooms[%u]: no room is named '%s'",
                        (unsigned)i, (unsigned)k, ch->rooms[k]);
                return false;
            }
        }
    }
    return true;
}

const rs_cfg_championship *rs_cfg_room_championship(const rs_server_config *c,
                                                    const char *room)
{
    for (uint32_t i = 0; i < c->championship_count; i++)
        for (uint32_t k = 0; k < c->championships[i].room_count; k++)
            if (strcmp(c->championships[i].rooms[k], room) == 0)
                return &c->championships[i];
    return NULL;
}
