/*
 * A room's race weekend in raceserver's configuration file:
 *
 *   "weekend": [
 *     {"session": "practice", "minutes": 10},
 *     {"session": "qualifying", "minutes": 8},
 *     {"session": "race", "laps": 12, "grid": "qualifying"},
 *     {"session": "race", "minutes": 20, "grid": "previous_race", "reverse": 8}
 *   ]
 *
 * Each session is practice, qualifying, warmup or race, with exactly one
 * length: laps, minutes or seconds. A race's grid is "join" (the seats in
 * order, the default), "qualifying" or "previous_race", with the top
 * "reverse" of it reversed. The room checks the same rules again
 * (rs_room_create); here they are worded for the file.
 */
#include "config_json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const session_names[RS_SESSION_TYPE_COUNT] = {
    [RS_SESSION_PRACTICE] = "practice",
    [RS_SESSION_QUALIFYING] = "qualifying",
    [RS_SESSION_WARMUP] = "warmup",
    [RS_SESSION_RACE] = "race",
};

static const char *const grid_names[RS_GRID_SOURCE_COUNT] = {
    [RS_GRID_JOIN_ORDER] = "join",
    [RS_GRID_QUALIFYING] = "qualifying",
    [RS_GRID_PREVIOUS_RACE] = "previous_race",
};

static bool j_name(const jctx *j, const cJSON *it, const char *field, const char *const *names,
                   uint32_t count, const char *words, uint8_t *out)
{
    for (uint32_t i = 0; cJSON_IsString(it) && i < count; i++)
        if (strcmp(it->valuestring, names[i]) == 0) {
            *out = (uint8_t)i;
            return true;
        }
    return jfail(j, field, "must be one of %s", words);
}

/* A length in minutes or seconds (fractions allowed) into whole seconds. */
static bool j_seconds(const jctx *j, const cJSON *it, const char *field, double scale,
                      uint32_t *out)
{
    double v = cJSON_IsNumber(it) ? it->valuedouble * scale : NAN;
    if (!(v >= 1.0 && v <= (double)RS_PROTO_SESSION_MAX_S))
        return jfail(j, field, "must be a number giving 1 s .. 24 h");
    *out = (uint32_t)lround(v);
    return true;
}

static bool j_session(const jctx *j, const cJSON *o, const char *base,
                      rs_proto_session_def *s)
{
    char field[128];
    if (!cJSON_IsObject(o))
        return jfail(j, base, "must be an object");
    memset(s, 0, sizeof *s);
    bool typed = false, grid = false;
    uint32_t lengths = 0, v = 0;
    for (const cJSON *it = o->child; it; it = it->next) {
        snprintf(field, sizeof field, "%s.%s", base, it->string);
        const char *k = it->string;
        bool ok;
        if (strcmp(k, "session") == 0) {
            ok = typed = j_name(j, it, field, session_names, RS_SESSION_TYPE_COUNT,
                                "practice, qualifying, warmup, race", &s->type);
        } else if (strcmp(k, "laps") == 0) {
            ok = j_u32(j, it, field, 1, 1000, &v);
            s->laps = (uint16_t)v;
            lengths++;
        } else if (strcmp(k, "minutes") == 0 || strcmp(k, "seconds") == 0) {
            ok = j_seconds(j, it, field, k[0] == 'm' ? 60.0 : 1.0, &s->time_limit_s);
            lengths++;
        } else if (strcmp(k, "grid") == 0) {
            ok = j_name(j, it, field, grid_names, RS_GRID_SOURCE_COUNT,
                        "join, qualifying, previous_race", &s->grid_source);
            grid = true;
        } else if (strcmp(k, "reverse") == 0) {
            ok = j_u32(j, it, field, 0, RS_PROTO_MAX_CARS, &v);
            s->grid_reverse = (uint8_t)v;
            grid = true;
        } else {
            return jfail(j, field, "unknown key");
        }
        if (!ok)
            return false;
    }
    if (!typed)
        return jfail(j, base, "needs \"session\": practice, qualifying, warmup or race");
    if (lengths != 1)
        return jfail(j, base, "needs exactly one length: \"laps\", \"minutes\" or \"seconds\"");
    if (grid && s->type != RS_SESSION_RACE)
        return jfail(j, base, "only a race takes \"grid\" and \"reverse\"");
    return true;
}

bool rs_cfg_json_weekend(const jctx *j, const cJSON *it, const char *field, rs_cfg_room *r)
{
    int n = cJSON_IsArray(it) ? cJSON_GetArraySize(it) : -1;
    if (n < 1 || n > (int)RS_PROTO_MAX_SESSIONS)
        return jfail(j, field, "must be an array of 1..%u sessions",
                     (unsigned)RS_PROTO_MAX_SESSIONS);
    for (int i = 0; i < n; i++) {
        char base[96];
        snprintf(base, sizeof base, "%s[%d]", field, i);
        if (!j_session(j, cJSON_GetArrayItem(it, i), base, &r->sessions[i]))
            return false;
    }
    r->session_count = (uint32_t)n;
    return true;
}
