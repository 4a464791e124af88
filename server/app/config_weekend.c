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

/* ------------------------------------------------------- cars and entries */

static bool j_bop(const jctx *j, const cJSON *o, const char *base, double *ballast,
                  double *restrictor, bool *given)
{
    char field[160];
    for (const cJSON *it = o->child; it; it = it->next) {
        bool b = strcmp(it->string, "ballast_kg") == 0;
        if (!b && strcmp(it->string, "restrictor_pct") != 0)
            continue;
        snprintf(field, sizeof field, "%s.%s", base, it->string);
        double hi = b ? RS_PROTO_BALLAST_MAX_KG : RS_PROTO_RESTRICTOR_MAX;
        double v = cJSON_IsNumber(it) ? it->valuedouble : NAN;
        if (!(v >= 0.0 && v <= hi))
            return jfail(j, field, "must be a number in 0..%g", hi);
        *(b ? ballast : restrictor) = v;
        if (given)
            *given = true;
    }
    return true;
}

bool rs_cfg_json_cars(const jctx *j, const cJSON *it, const char *field, const char *data_dir,
                      rs_cfg_room *r)
{
    int n = cJSON_IsArray(it) ? cJSON_GetArraySize(it) : -1;
    if (n < 1 || n > RS_CFG_MAX_CARS)
        return jfail(j, field, "must be an array of 1..%d cars", RS_CFG_MAX_CARS);
    for (int i = 0; i < n; i++) {
        const cJSON *o = cJSON_GetArrayItem(it, i);
        rs_cfg_car *c = &r->cars[i];
        char base[96], f[160];
        snprintf(base, sizeof base, "%s[%d]", field, i);
        if (!cJSON_IsObject(o))
            return jfail(j, base, "must be an object");
        memset(c, 0, sizeof *c);
        for (const cJSON *k = o->child; k; k = k->next) {
            snprintf(f, sizeof f, "%s.%s", base, k->string);
            if (strcmp(k->string, "car") == 0) {
                if (!j_str(j, k, f, 1, sizeof c->name - 1, c->name, sizeof c->name))
                    return false;
                rs_cfg_data_path(c->path, sizeof c->path, data_dir, "cars", c->name);
            } else if (strcmp(k->string, "class") == 0) {
                if (!j_str(j, k, f, 1, 32, c->class_name, sizeof c->class_name))
                    return false;
                if (!rs_proto_name_check(c->class_name, strlen(c->class_name), NULL, 0))
                    return jfail(j, f, "a class name follows the player name rules");
            } else if (strcmp(k->string, "ballast_kg") != 0 &&
                       strcmp(k->string, "restrictor_pct") != 0) {
                return jfail(j, f, "unknown key");
            }
        }
        if (!c->name[0])
            return jfail(j, base, "needs \"car\": a car file or name");
        if (!j_bop(j, o, base, &c->ballast_kg, &c->restrictor_pct, NULL))
            return false;
        for (int k = 0; k < i; k++)
            if (strcmp(r->cars[k].name, c->name) == 0)
                return jfail(j, base, "the car '%s' is offered twice", c->name);
    }
    r->car_count = (uint32_t)n;
    return true;
}

bool rs_cfg_json_entries(const jctx *j, const cJSON *it, const char *field, rs_cfg_room *r)
{
    if (!cJSON_IsObject(it))
        return jfail(j, field, "must be an object: {\"only\": bool, \"entries\": [...]}");
    const cJSON *arr = NULL;
    r->entries_only = false;
    for (const cJSON *k = it->child; k; k = k->next) {
        char f[128];
        snprintf(f, sizeof f, "%s.%s", field, k->string);
        if (strcmp(k->string, "only") == 0) {
            if (!j_bool(j, k, f, &r->entries_only))
                return false;
        } else if (strcmp(k->string, "entries") == 0) {
            arr = k;
        } else {
            return jfail(j, f, "unknown key");
        }
    }
    int n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : -1;
    if (n < 1 || n > (int)RS_PROTO_MAX_CARS)
        return jfail(j, field, "needs \"entries\": an array of 1..32 entries");
    for (int i = 0; i < n; i++) {
        const cJSON *o = cJSON_GetArrayItem(arr, i);
        rs_cfg_entry *e = &r->entries[i];
        char base[96], f[160];
        snprintf(base, sizeof base, "%s.entries[%d]", field, i);
        if (!cJSON_IsObject(o))
            return jfail(j, base, "must be an object");
        memset(e, 0, sizeof *e);
        for (const cJSON *k = o->child; k; k = k->next) {
            snprintf(f, sizeof f, "%s.%s", base, k->string);
            bool ok = true;
            if (strcmp(k->string, "player") == 0) {
                ok = j_str(j, k, f, 1, 32, e->player, sizeof e->player) &&
                     (rs_proto_name_check(e->player, strlen(e->player), NULL, 0) ||
                      jfail(j, f, "not a valid player name"));
            } else if (strcmp(k->string, "car") == 0) {
                ok = j_str(j, k, f, 1, sizeof e->car - 1, e->car, sizeof e->car);
            } else if (strcmp(k->string, "number") == 0) {
                ok = j_u32(j, k, f, 0, RS_PROTO_NUMBER_MAX, &e->number);
            } else if (strcmp(k->string, "ballast_kg") != 0 &&
                       strcmp(k->string, "restrictor_pct") != 0) {
                return jfail(j, f, "unknown key");
            }
            if (!ok)
                return false;
        }
        if (!e->player[0])
            return jfail(j, base, "needs \"player\": a registered player's name");
        if (!j_bop(j, o, base, &e->ballast_kg, &e->restrictor_pct, &e->bop))
            return false;
        for (int k = 0; k < i; k++)
            if (rs_proto_name_equal(r->entries[k].player, e->player))
                return jfail(j, base, "'%s' is entered twice", e->player);
    }
    r->entry_count = (uint32_t)n;
    return true;
}

uint32_t rs_cfg_car_index(const rs_cfg_room *r, const char *car)
{
    if (!car[0])
        return 0;
    for (uint32_t k = 0; k < r->car_count; k++)
        if (strcmp(r->cars[k].name, car) == 0)
            return k;
    return UINT32_MAX;
}

bool rs_cfg_weekend_check(const rs_cfg_room *r, char *err, size_t err_len)
{
    for (uint32_t i = 0; i < r->entry_count; i++) {
        const rs_cfg_entry *e = &r->entries[i];
        if (rs_cfg_car_index(r, e->car) == UINT32_MAX) {
            rs_errf(err, err_len, "room %s: entry_list: %s's car '%s' is not one of its cars",
                    r->name, e->player, e->car);
            return false;
        }
    }
    if (r->entry_count > r->max_players) {
        rs_errf(err, err_len, "room %s: entry_list: %u entries, max_players is %u", r->name,
                (unsigned)r->entry_count, (unsigned)r->max_players);
        return false;
    }
    return true;
}

/* ---------------------------------------------------------- race control */

/*   "race_control": {
 *     "track_limits": {"strikes": 3, "penalty_s": 5},
 *     "contact": {"min_speed_m_s": 3, "penalty_points": 4, "penalty_s": 5,
 *                 "dsq_points": 20},
 *     "jump_start": {"penalty_s": 10, "tolerance_m": 0.5}
 *   }
 * Each rule is on when its object is there; the room checks the same
 * ranges again (rs_room_create). */

static bool j_num(const jctx *j, const cJSON *it, const char *field, double lo, double hi,
                  double *out)
{
    double v = cJSON_IsNumber(it) ? it->valuedouble : NAN;
    if (!(v >= lo && v <= hi))
        return jfail(j, field, "must be a number in %g..%g", lo, hi);
    *out = v;
    return true;
}

/* One rule's object: each key one of names (numbers: whole in 1..3600 for
 * "penalty_s", 1..100 for "strikes", else lo[i]..hi[i]). */
typedef struct rule_key {
    const char *key;
    double lo, hi;
    bool whole;
    bool seen;
    double value;
} rule_key;

static bool j_rule(const jctx *j, const cJSON *o, const char *base, rule_key *keys, int n)
{
    char field[160];
    if (!cJSON_IsObject(o))
        return jfail(j, base, "must be an object");
    for (const cJSON *it = o->child; it; it = it->next) {
        snprintf(field, sizeof field, "%s.%s", base, it->string);
        int k = 0;
        while (k < n && strcmp(it->string, keys[k].key) != 0)
            k++;
        if (k == n)
            return jfail(j, field, "unknown key");
        if (keys[k].whole) {
            uint32_t v;
            if (!j_u32(j, it, field, (uint32_t)keys[k].lo, (uint32_t)keys[k].hi, &v))
                return false;
            keys[k].value = v;
        } else if (!j_num(j, it, field, keys[k].lo, keys[k].hi, &keys[k].value)) {
            return false;
        }
        keys[k].seen = true;
    }
    return true;
}

bool rs_cfg_json_race_control(const jctx *j, const cJSON *it, const char *field,
                              rs_cfg_room *r)
{
    char base[128];
    rs_room_race_control *rc = &r->race_control;
    memset(rc, 0, sizeof *rc);
    if (!cJSON_IsObject(it))
        return jfail(j, field, "must be an object");
    for (const cJSON *o = it->child; o; o = o->next) {
        snprintf(base, sizeof base, "%s.%s", field, o->string);
        if (strcmp(o->string, "track_limits") == 0) {
            rule_key k[] = {{"strikes", 1, 100, true, false, 0},
                            {"penalty_s", 1, RS_PROTO_PENALTY_MAX_S, true, false, 0}};
            if (!j_rule(j, o, base, k, 2))
                return false;
            if (!k[0].seen || !k[1].seen)
                return jfail(j, base, "needs \"strikes\" and \"penalty_s\"");
            rc->track_limits.strikes = (uint32_t)k[0].value;
            rc->track_limits.penalty_s = (uint32_t)k[1].value;
        } else if (strcmp(o->string, "contact") == 0) {
            rule_key k[] = {{"min_speed_m_s", 0.5, 50, false, false, 0},
                            {"penalty_points", 0.01, 1e6, false, false, 0},
                            {"penalty_s", 1, RS_PROTO_PENALTY_MAX_S, true, false, 0},
                            {"dsq_points", 0.01, 1e6, false, false, 0}};
            if (!j_rule(j, o, base, k, 4))
                return false;
            if (!k[0].seen)
                return jfail(j, base, "needs \"min_speed_m_s\"");
            if (k[1].seen != k[2].seen)
                return jfail(j, base, "\"penalty_points\" and \"penalty_s\" go together");
            if (!k[1].seen && !k[3].seen)
                return jfail(j, base, "needs \"penalty_points\" or \"dsq_points\"");
            rc->contact.min_speed_m_s = k[0].value;
            rc->contact.penalty_points = k[1].value;
            rc->contact.penalty_s = (uint32_t)k[2].value;
            rc->contact.dsq_points = k[3].value;
        } else if (strcmp(o->string, "jump_start") == 0) {
            rule_key k[] = {{"penalty_s", 1, RS_PROTO_PENALTY_MAX_S, true, false, 0},
                            {"tolerance_m", 0.05, 10, false, false, 0}};
            if (!j_rule(j, o, base, k, 2))
                return false;
            if (!k[0].seen)
                return jfail(j, base, "needs \"penalty_s\"");
            rc->jump_start.penalty_s = (uint32_t)k[0].value;
            rc->jump_start.tolerance_m = k[1].value;
        } else {
            return jfail(j, base, "unknown key (track_limits, contact, jump_start)");
        }
    }
    return true;
}

/* ------------------------------------------------------- chat and votes */

/* One object of unsigned settings: each key its field and range. */
typedef struct u32_key {
    const char *key;
    uint32_t lo, hi;
    uint32_t *out;
} u32_key;

static bool j_settings(const jctx *j, const cJSON *it, const char *field, const u32_key *keys,
                       size_t n)
{
    for (const cJSON *k = it->child; k; k = k->next) {
        char f[160];
        snprintf(f, sizeof f, "%s.%s", field, k->string);
        size_t i = 0;
        while (i < n && strcmp(keys[i].key, k->string) != 0)
            i++;
        if (i == n)
            return jfail(j, f, "unknown key");
        if (!j_u32(j, k, f, keys[i].lo, keys[i].hi, keys[i].out))
            return false;
    }
    return true;
}

bool rs_cfg_json_chat(const jctx *j, const cJSON *it, const char *field, rs_cfg_room *r)
{
    if (cJSON_IsFalse(it)) {
        r->chat.burst = 0;
        return true;
    }
    if (!cJSON_IsObject(it))
        return jfail(j, field, "must be false or {\"burst\": 1..100, \"per_minute\": 1..600}");
    const u32_key keys[] = {{"burst", 1, 100, &r->chat.burst},
                            {"per_minute", 1, 600, &r->chat.per_minute}};
    return j_settings(j, it, field, keys, sizeof keys / sizeof keys[0]);
}

bool rs_cfg_json_votes(const jctx *j, const cJSON *it, const char *field, rs_cfg_room *r)
{
    if (cJSON_IsFalse(it)) {
        r->votes.off = true;
        return true;
    }
    if (!cJSON_IsObject(it))
        return jfail(j, field, "must be false or an object of vote settings");
    r->votes.off = false;
    const u32_key keys[] = {{"quorum_pct", 1, 100, &r->votes.quorum_pct},
                            {"majority_pct", 50, 99, &r->votes.majority_pct},
                            {"duration_s", 5, 600, &r->votes.duration_s},
                            {"cooldown_s", 0, 3600, &r->votes.cooldown_s}};
    return j_settings(j, it, field, keys, sizeof keys / sizeof keys[0]);
}
