/*
 * Championship standings from stored results (racesim/championship.h): the
 * rows of the championship's finished sessions are read room by room, in
 * session order, and scored in memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "racesim/base/err.h"
#include "racesim/protocol.h"
#include "racesim/championship.h"
#include "store_internal.h"

const uint32_t rs_championship_default_points[10] = {25, 18, 15, 12, 10, 8, 6, 4, 2, 1};

bool rs_championship_check(const rs_championship_def *c, const char **why)
{
    const char *w = NULL;
    if (!c || !c->name || !rs_proto_name_check(c->name, strlen(c->name), NULL, 0))
        w = "a championship needs a name by the name rules";
    else if (c->room_count < 1 || c->room_count > RS_CHAMPIONSHIP_MAX_ROOMS || !c->rooms)
        w = "a championship needs 1 to 16 rooms";
    else if (c->points_count > RS_CHAMPIONSHIP_MAX_POINTS || (c->points_count && !c->points))
        w = "a points table has at most 64 positions";
    else if (c->session_types >> RS_STORE_SESSION_TYPE_COUNT)
        w = "a session type that scores is unknown";
    for (uint32_t i = 0; !w && i < c->room_count; i++)
        if (!c->rooms[i] || !c->rooms[i][0])
            w = "a championship's room has no name";
    if (w && why)
        *why = w;
    return !w;
}

/* One stored row of a counted session. */
typedef struct st_row {
    int64_t race_id, player_id, best_lap_us;
    int type;
    uint32_t position, class_position;
    int status; /* RS_STORE_RESULT_* */
    bool fastest;
    char name[33], class_name[33];
} st_row;

typedef struct st_rows {
    st_row *v;
    size_t len, cap;
} st_rows;

static rs_status read_room(rs_store *s, const char *room, st_rows *rows, char *err,
                           size_t err_len)
{
    sqlite3_stmt *st = rs_store__stmt(
        s, RS_STMT_STANDINGS_ROWS,
        "SELECT r.id, r.session_type, rr.player_id, p.name, rr.class_name, rr.position,"
        " rr.class_position, rr.status, rr.fastest_lap, coalesce(rr.best_lap_us, -1)"
        " FROM races AS r JOIN race_results AS rr ON rr.race_id = r.id"
        " JOIN players AS p ON p.id = rr.player_id"
        " WHERE r.room = ?1 AND r.status = 'finished' ORDER BY r.id, rr.position",
        err, err_len);
    if (!st)
        return RS_ERR_IO;
    sqlite3_bind_text(st, 1, room, -1, SQLITE_TRANSIENT);
    int rc;
    rs_status status = RS_OK;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (rows->len == rows->cap) {
            size_t cap = rows->cap ? 2 * rows->cap : 64;
            st_row *n = realloc(rows->v, cap * sizeof *n);
            if (!n) {
                status = RS_ERR_NOMEM;
                break;
            }
            rows->v = n;
            rows->cap = cap;
        }
        st_row *r = &rows->v[rows->len++];
        memset(r, 0, sizeof *r);
        r->race_id = sqlite3_column_int64(st, 0);
        r->type = rs_store_session_type_parse((const char *)sqlite3_column_text(st, 1));
        r->player_id = sqlite3_column_int64(st, 2);
        const char *name = (const char *)sqlite3_column_text(st, 3);
        snprintf(r->name, sizeof r->name, "%s", name ? name : "");
        const char *cls = (const char *)sqlite3_column_text(st, 4);
        snprintf(r->class_name, sizeof r->class_name, "%s", cls ? cls : "");
        r->position = (uint32_t)sqlite3_column_int64(st, 5);
        r->class_position = (uint32_t)sqlite3_column_int64(st, 6);
        const char *stt = (const char *)sqlite3_column_text(st, 7);
        r->status = stt && strcmp(stt, "classified") == 0     ? RS_STORE_RESULT_CLASSIFIED
                    : stt && strcmp(stt, "disqualified") == 0 ? RS_STORE_RESULT_DISQUALIFIED
                                                              : RS_STORE_RESULT_NOT_CLASSIFIED;
        r->fastest = sqlite3_column_int(st, 8) != 0;
        r->best_lap_us = sqlite3_column_int64(st, 9);
    }
    if (status == RS_OK && rc != SQLITE_DONE)
        status = rs_store__fail(s, rc, "reading results for standings", err, err_len);
    sqlite3_reset(st);
    return status;
}

typedef struct st_table {
    rs_championship_row *v;
    size_t len, cap;
} st_table;

static rs_championship_row *driver(st_table *t, const st_row *r)
{
    for (size_t i = 0; i < t->len; i++)
        if (t->v[i].player_id == r->player_id)
            return &t->v[i];
    if (t->len == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 32;
        rs_championship_row *n = realloc(t->v, cap * sizeof *n);
        if (!n)
            return NULL;
        t->v = n;
        t->cap = cap;
    }
    rs_championship_row *d = &t->v[t->len++];
    memset(d, 0, sizeof *d);
    d->player_id = r->player_id;
    d->guest = r->name[0] == '~';
    snprintf(d->name, sizeof d->name, "%s", r->name + d->guest);
    return d;
}

static int by_points(const void *pa, const void *pb)
{
    const rs_championship_row *a = pa, *b = pb;
    if (a->points != b->points)
        return a->points > b->points ? -1 : 1;
    if (a->wins != b->wins)
        return a->wins > b->wins ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    return a->player_id < b->player_id ? -1 : a->player_id > b->player_id;
}

/* Scores one session's rows [from, to) (those of the class when one is
 * asked for) into t. */
static rs_status score_session(const rs_championship_def *c, const st_row *rows, size_t from,
                               size_t to, const char *cls, st_table *t)
{
    uint32_t types = c->session_types ? c->session_types : 1u << RS_STORE_SESSION_RACE;
    const uint32_t *pts = c->points ? c->points : rs_championship_default_points;
    uint32_t npts = c->points ? c->points_count : 10;
    int type = rows[from].type;
    bool scores = type >= 0 && (types >> type & 1u);
    bool pole = type == RS_STORE_SESSION_QUALIFYING && c->pole_points;
    if (!scores && !pole)
        return RS_OK;
    /* The class's fastest lap: the smallest best lap among its rows (ties to
     * the better position); overall, the room's own flag. */
    size_t fastest = to;
    for (size_t i = from; i < to; i++) {
        const st_row *r = &rows[i];
        if (cls && strcmp(r->class_name, cls) != 0)
            continue;
        if (!cls) {
            if (r->fastest)
                fastest = i;
        } else if (r->best_lap_us >= 0 &&
                   (fastest == to || r->best_lap_us < rows[fastest].best_lap_us)) {
            fastest = i;
        }
    }
    for (size_t i = from; i < to; i++) {
        const st_row *r = &rows[i];
        if (cls && strcmp(r->class_name, cls) != 0)
            continue;
        uint32_t pos = cls ? r->class_position : r->position;
        bool classified = r->status == RS_STORE_RESULT_CLASSIFIED;
        bool won_pole = pole && classified && pos == 1;
        if (!scores && !won_pole)
            continue;
        rs_championship_row *d = driver(t, r);
        if (!d)
            return RS_ERR_NOMEM;
        snprintf(d->class_name, sizeof d->class_name, "%s", r->class_name);
        if (won_pole) {
            d->points += c->pole_points;
            d->poles++;
        }
        if (!scores)
            continue;
        d->events++;
        if (classified && pos >= 1 && pos <= npts)
            d->points += pts[pos - 1];
        if (classified && pos == 1)
            d->wins++;
        if (i == fastest && c->fastest_lap_points &&
            r->status != RS_STORE_RESULT_DISQUALIFIED) {
            d->points += c->fastest_lap_points;
            d->fastest_laps++;
        }
    }
    return RS_OK;
}

rs_status rs_store_standings(rs_store *s, const rs_championship_def *c, const char *class_name,
                             uint32_t offset, rs_championship_row *out, uint32_t cap,
                             uint32_t *total, char *err, size_t err_len)
{
    const char *why = NULL;
    if (!s || !total || (cap && !out))
        return RS_ERR_ARG;
    if (!rs_championship_check(c, &why)) {
        rs_errf(err, err_len, "championship: %s", why);
        return RS_ERR_ARG;
    }
    const char *cls = class_name && class_name[0] ? class_name : NULL;
    st_rows rows = {0};
    st_table t = {0};
    rs_status status = RS_OK;
    for (uint32_t k = 0; k < c->room_count && status == RS_OK; k++) {
        bool seen = false; /* a room listed twice counts once */
        for (uint32_t j = 0; j < k; j++)
            seen |= strcmp(c->rooms[j], c->rooms[k]) == 0;
        if (seen)
            continue;
        rows.len = 0;
        status = read_room(s, c->rooms[k], &rows, err, err_len);
        for (size_t i = 0; status == RS_OK && i < rows.len;) {
            size_t j = i;
            while (j < rows.len && rows.v[j].race_id == rows.v[i].race_id)
                j++;
            status = score_session(c, rows.v, i, j, cls, &t);
            i = j;
        }
    }
    free(rows.v);
    if (status != RS_OK) {
        if (status == RS_ERR_NOMEM)
            rs_errf(err, err_len, "standings: out of memory");
        free(t.v);
        return status;
    }
    if (t.len > 1)
        qsort(t.v, t.len, sizeof *t.v, by_points);
    for (size_t i = 0; i < t.len; i++)
        t.v[i].position = i > 0 && t.v[i].points == t.v[i - 1].points ? t.v[i - 1].position
                                                                      : (uint32_t)i + 1;
    *total = (uint32_t)t.len;
    for (uint32_t i = 0; i < cap && (size_t)offset + i < t.len; i++)
        out[i] = t.v[offset + i];
    free(t.v);
    return RS_OK;
}
