/*
 * The flat layer (racesim/client_flat.h): the client behind calls a
 * foreign-function interface can mirror. This file holds the configuration
 * by name, the connection and the controls; client_flat_events.c turns
 * events into the one flat layout; client_flat_state.c answers what a game
 * draws (poses, the HUD car, the track, standings, stats) and the struct
 * sizes a binding checks.
 *
 * Every call reads the clock itself (rs_clock_us), so a binding never has
 * to agree with the SDK on a time base. Every call accepts a NULL client:
 * a binding's mistake should be an error code, not a crash of the game.
 */
#include "racesim/client_flat.h"

#include <stdlib.h>
#include <string.h>

#include "racesim/base/clock.h"
#include "racesim/base/err.h"

int32_t rs_flat_version(void)
{
    return RS_FLAT_VERSION;
}

/* ------------------------------------------------------------ config */

/* The string options, in the order of rs_flat_config.owned. */
enum { FLAT_NAME, FLAT_TOKEN, FLAT_ROOM, FLAT_PASSWORD, FLAT_SERVER_KEY, FLAT_KNOWN_HOSTS,
       FLAT_STRINGS };

struct rs_flat_config {
    rs_client_config cfg;
    char *owned[FLAT_STRINGS]; /* the copies cfg's strings point at (NULL = none) */
};

static const char **string_field(rs_client_config *cfg, int which)
{
    switch (which) {
    case FLAT_NAME: return &cfg->name;
    case FLAT_TOKEN: return &cfg->token;
    case FLAT_ROOM: return &cfg->room;
    case FLAT_PASSWORD: return &cfg->password;
    case FLAT_SERVER_KEY: return &cfg->server_key;
    default: return &cfg->known_hosts;
    }
}

/* Replaces string option `which` with a copy of value (NULL stays NULL:
 * the SDK reads it as ""). False when out of memory, leaving it as it was. */
static bool set_string(rs_flat_config *f, int which, const char *value)
{
    char *copy = NULL;
    if (value) {
        size_t n = strlen(value) + 1;
        copy = malloc(n);
        if (!copy)
            return false;
        memcpy(copy, value, n);
    }
    free(f->owned[which]);
    f->owned[which] = copy;
    *string_field(&f->cfg, which) = copy;
    return true;
}

rs_flat_config *rs_flat_config_new(void)
{
    rs_flat_config *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->cfg = rs_client_config_default();
    /* The defaults' strings are the SDK's literals; copies, so that every
     * string the struct points at is one it owns and frees alike. */
    for (int i = 0; i < FLAT_STRINGS; i++) {
        if (!set_string(f, i, *string_field(&f->cfg, i))) {
            rs_flat_config_free(f);
            return NULL;
        }
    }
    return f;
}

void rs_flat_config_free(rs_flat_config *cfg)
{
    if (!cfg)
        return;
    for (int i = 0; i < FLAT_STRINGS; i++)
        free(cfg->owned[i]);
    free(cfg);
}

/* A decimal number without sign, space or base prefix, at most max: the
 * text a foreign caller formats from an integer. */
static bool parse_u64(const char *text, uint64_t max, uint64_t *out)
{
    if (!text || !text[0])
        return false;
    uint64_t v = 0;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        uint64_t digit = (uint64_t)(*p - '0');
        /* v * 10 + digit <= max, checked before it is computed: a 64-bit
         * value has no wider type to overflow into */
        if (digit > max || v > (max - digit) / 10u)
            return false;
        v = v * 10u + digit;
    }
    *out = v;
    return true;
}

static bool parse_uint(const char *text, uint32_t max, uint32_t *out)
{
    uint64_t v;
    if (!parse_u64(text, max, &v))
        return false;
    *out = (uint32_t)v;
    return true;
}

typedef enum { OPT_STRING, OPT_BOOL, OPT_U32, OPT_U8, OPT_U64 } opt_kind;

typedef struct flat_option {
    const char *key;
    opt_kind kind;
    int string;    /* OPT_STRING: FLAT_* */
    size_t offset; /* the others: of the field in rs_client_config */
} flat_option;

static const flat_option options[] = {
    {"name", OPT_STRING, FLAT_NAME, 0},
    {"token", OPT_STRING, FLAT_TOKEN, 0},
    {"room", OPT_STRING, FLAT_ROOM, 0},
    {"password", OPT_STRING, FLAT_PASSWORD, 0},
    {"server_key", OPT_STRING, FLAT_SERVER_KEY, 0},
    {"known_hosts", OPT_STRING, FLAT_KNOWN_HOSTS, 0},
    {"register_player", OPT_BOOL, 0, offsetof(rs_client_config, register_player)},
    {"spectator", OPT_BOOL, 0, offsetof(rs_client_config, spectator)},
    {"predicted_events", OPT_BOOL, 0, offsetof(rs_client_config, predicted_events)},
    {"simulate", OPT_BOOL, 0, offsetof(rs_client_config, simulate)},
    {"lead_margin_ticks", OPT_U32, 0, offsetof(rs_client_config, lead_margin_ticks)},
    {"min_lead_ms", OPT_U32, 0, offsetof(rs_client_config, min_lead_ms)},
    {"max_lead_ticks", OPT_U32, 0, offsetof(rs_client_config, max_lead_ticks)},
    {"input_interval_ticks", OPT_U32, 0, offsetof(rs_client_config, input_interval_ticks)},
    {"connect_timeout_ms", OPT_U32, 0, offsetof(rs_client_config, connect_timeout_ms)},
    {"timeout_ms", OPT_U32, 0, offsetof(rs_client_config, timeout_ms)},
    {"ping_interval_ms", OPT_U32, 0, offsetof(rs_client_config, ping_interval_ms)},
    {"snapshot_policy", OPT_U8, 0, offsetof(rs_client_config, snapshot_policy)},
    {"car_hash", OPT_U64, 0, offsetof(rs_client_config, car_hash)},
};

int32_t rs_flat_config_set(rs_flat_config *cfg, const char *key, const char *value)
{
    if (!cfg || !key)
        return RS_CLIENT_ERR_ARG;
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        const flat_option *o = &options[i];
        if (strcmp(o->key, key) != 0)
            continue;
        char *field = (char *)&cfg->cfg + o->offset;
        uint32_t v;
        switch (o->kind) {
        case OPT_STRING:
            return set_string(cfg, o->string, value) ? RS_CLIENT_OK : RS_CLIENT_ERR_NOMEM;
        case OPT_BOOL:
            if (!parse_uint(value, 1, &v))
                return RS_CLIENT_ERR_ARG;
            *(bool *)(void *)field = v == 1;
            return RS_CLIENT_OK;
        case OPT_U32:
            if (!parse_uint(value, UINT32_MAX, &v))
                return RS_CLIENT_ERR_ARG;
            *(uint32_t *)(void *)field = v;
            return RS_CLIENT_OK;
        case OPT_U8:
            /* The field's own range: a larger number would wrap into a
             * different, valid-looking value before connect could see it. */
            if (!parse_uint(value, UINT8_MAX, &v))
                return RS_CLIENT_ERR_ARG;
            *(uint8_t *)(void *)field = (uint8_t)v;
            return RS_CLIENT_OK;
        case OPT_U64: {
            uint64_t v64;
            if (!parse_u64(value, UINT64_MAX, &v64))
                return RS_CLIENT_ERR_ARG;
            *(uint64_t *)(void *)field = v64;
            return RS_CLIENT_OK;
        }
        }
    }
    return RS_CLIENT_ERR_ARG;
}

/* -------------------------------------------------------- connection */

rs_client *rs_flat_connect(const rs_flat_config *cfg, const char *host, int32_t port, char *err,
                           int32_t err_len)
{
    size_t cap = err && err_len > 0 ? (size_t)err_len : 0;
    if (!cfg) {
        rs_errf(err, cap, "config: NULL");
        return NULL;
    }
    if (port < 1 || port > 65535) {
        rs_errf(err, cap, "port: 1..65535");
        return NULL;
    }
    rs_client *c = NULL;
    if (rs_client_connect(&cfg->cfg, host, (uint16_t)port, rs_clock_us(), &c, err, cap) !=
        RS_CLIENT_OK)
        return NULL;
    return c;
}

/* How long rs_flat_close keeps servicing the link after the BYE, and how
 * often: ENet sends the BYE and its own disconnect only from a service
 * call, and resends them until the server acknowledges. */
#define FLAT_GOODBYE_US 100000
#define FLAT_GOODBYE_STEP_US 5000

void rs_flat_close(rs_client *c)
{
    if (!c)
        return;
    int64_t start = rs_clock_us();
    rs_client_disconnect(c, start);
    for (;;) {
        rs_client_update(c, rs_clock_us());
        if (rs_clock_us() - start >= FLAT_GOODBYE_US)
            break;
        rs_sleep_us(FLAT_GOODBYE_STEP_US);
    }
    rs_client_destroy(c);
}

void rs_flat_update(rs_client *c)
{
    rs_client_update(c, rs_clock_us());
}

int32_t rs_flat_state(const rs_client *c)
{
    return c ? (int32_t)rs_client_get_state(c) : RS_CLIENT_CLOSED;
}

int32_t rs_flat_car(const rs_client *c)
{
    return c ? rs_client_car(c) : 0;
}

/* ---------------------------------------------------------- controls */

void rs_flat_set_controls(rs_client *c, double steer, double throttle, double brake,
                          double handbrake, int32_t gear)
{
    if (!c)
        return;
    rs_input in = rs_input_quantise(steer, throttle, brake, 0.0, handbrake);
    /* An int32 from another language: clamped before it becomes the int8
     * of the input, where 300 would otherwise wrap into gear 44. */
    if (gear == RS_GEAR_KEEP)
        in.gear = RS_GEAR_KEEP;
    else if (gear < RS_GEAR_REVERSE)
        in.gear = RS_GEAR_REVERSE;
    else if (gear > RS_PROTO_GEAR_MAX)
        in.gear = RS_PROTO_GEAR_MAX;
    else
        in.gear = (int8_t)gear;
    rs_client_set_input(c, &in);
}
