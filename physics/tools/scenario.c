/*
 * Scenario files (see scenario.h and examples/scenarios/README.md): parsed
 * strictly with the project's JSON reader, so every mistake is reported with
 * the field's path, then replayed tick by tick into a world. The step
 * program is expanded at parse time into complete quantised inputs, so the
 * replay itself is a table lookup and cannot differ between machines.
 */
#include "scenario.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "racesim/base/err.h"

typedef struct sc_step {
    uint64_t tick;        /* first tick (0-based) the step applies to */
    rs_input in;          /* complete input, earlier steps carried over */
    uint8_t buttons_once; /* pressed on the first tick of the step only */
} sc_step;

typedef struct sc_car {
    char path[RS_SCENARIO_PATH_MAX];
    rs_car_spawn spawn;
    sc_step *steps;
    uint32_t n_steps;
} sc_car;

struct rs_scenario {
    uint32_t tick_hz, substeps;
    double duration_s;
    uint64_t ticks;
    sc_car *cars;
    uint32_t n_cars;
};

/* ---------------------------------------------------------------- parsing */

/* The first tick whose start time n / hz is at or after t (with a tolerance
 * for decimal fractions such as 0.1 s that are not exact in binary). */
static uint64_t first_tick_at(double t, uint32_t hz)
{
    double x = t * (double)hz;
    uint64_t n = (uint64_t)x;
    if ((double)n < x - 1e-6)
        n++;
    return n;
}

static int join_path(char *out, size_t cap, const char *base, const char *rel)
{
    int n;
    if (!base || !*base || rel[0] == '/')
        n = snprintf(out, cap, "%s", rel);
    else
        n = snprintf(out, cap, "%s/%s", base, rel);
    return n >= 0 && (size_t)n < cap;
}

static bool opt_number(rs_json_ctx *c, const rs_json *obj, const char *key, double lo, double hi,
                       double *out)
{
    if (!rs_json_get(obj, key))
        return true;
    return rs_json_get_number(c, obj, key, lo, hi, out);
}

static bool read_mode(rs_json_ctx *c, const rs_json *obj, const char *key, uint8_t *out)
{
    const char *s;
    if (!rs_json_get(obj, key))
        return true;
    if (!rs_json_get_string(c, obj, key, 16, &s))
        return false;
    if (strcmp(s, "auto") == 0)
        *out = 0; /* RS_TRANSMISSION_AUTO / RS_CLUTCH_AUTO */
    else if (strcmp(s, "manual") == 0)
        *out = 1;
    else {
        size_t mark = rs_json_ctx_push_key(c, key);
        rs_json_fail(c, RS_ERR_RANGE, "\"%s\" is not \"auto\" or \"manual\"", s);
        rs_json_ctx_pop(c, mark);
        return false;
    }
    return true;
}

static bool parse_spawn(rs_json_ctx *c, const rs_json *obj, rs_car_spawn *sp)
{
    static const char *const keys[] = {"x", "y", "z", "yaw", "speed", "gear", "transmission", "clutch"};
    int64_t gear = 0;
    if (!rs_json_check_keys(c, obj, keys, sizeof keys / sizeof keys[0]))
        return false;
    opt_number(c, obj, "x", -1e7, 1e7, &sp->pos_m[0]);
    opt_number(c, obj, "y", -1e7, 1e7, &sp->pos_m[1]);
    opt_number(c, obj, "z", -10.0, 100.0, &sp->pos_m[2]);
    opt_number(c, obj, "yaw", -7.0, 7.0, &sp->yaw_rad);
    opt_number(c, obj, "speed", -100.0, 150.0, &sp->speed_m_s);
    if (rs_json_get(obj, "gear") && rs_json_get_integer(c, obj, "gear", -1, 10, &gear))
        sp->gear = (int8_t)gear;
    read_mode(c, obj, "transmission", &sp->transmission);
    read_mode(c, obj, "clutch", &sp->clutch_mode);
    return c->status == RS_OK;
}

typedef struct controls {
    double steer, throttle, brake, clutch, handbrake;
    int gear;
} controls;

static bool parse_step(rs_json_ctx *c, const rs_json *obj, double duration, double prev_t,
                       uint32_t hz, controls *ctl, sc_step *out)
{
    static const char *const keys[] = {"t_s",    "steer", "throttle", "brake", "clutch",
                                       "handbrake", "gear", "shift"};
    double t = 0.0;
    if (!rs_json_as_kind(c, obj, RS_JSON_OBJECT) ||
        !rs_json_check_keys(c, obj, keys, sizeof keys / sizeof keys[0]))
        return false;
    if (!rs_json_get_number(c, obj, "t_s", 0.0, duration, &t))
        return false;
    if (t <= prev_t) {
        size_t mark = rs_json_ctx_push_key(c, "t_s");
        rs_json_fail(c, RS_ERR_RANGE, "%g must be later than the previous step's %g", t, prev_t);
        rs_json_ctx_pop(c, mark);
        return false;
    }
    opt_number(c, obj, "steer", -1.0, 1.0, &ctl->steer);
    opt_number(c, obj, "throttle", 0.0, 1.0, &ctl->throttle);
    opt_number(c, obj, "brake", 0.0, 1.0, &ctl->brake);
    opt_number(c, obj, "clutch", 0.0, 1.0, &ctl->clutch);
    opt_number(c, obj, "handbrake", 0.0, 1.0, &ctl->handbrake);
    const rs_json *g = rs_json_get(obj, "gear");
    if (g) {
        size_t mark = rs_json_ctx_push_key(c, "gear");
        int64_t v = 0;
        if (rs_json_kind_of(g) == RS_JSON_STRING && strcmp(rs_json_string(g, NULL), "keep") == 0)
            ctl->gear = RS_GEAR_KEEP;
        else if (rs_json_kind_of(g) == RS_JSON_STRING)
            rs_json_fail(c, RS_ERR_RANGE, "expected an integer -1..10 or \"keep\", found \"%s\"",
                         rs_json_string(g, NULL));
        else if (rs_json_as_integer(c, g, -1, 10, &v))
            ctl->gear = (int)v;
        rs_json_ctx_pop(c, mark);
    }
    out->buttons_once = 0;
    if (rs_json_get(obj, "shift")) {
        const char *s;
        if (rs_json_get_string(c, obj, "shift", 8, &s)) {
            if (strcmp(s, "up") == 0)
                out->buttons_once = RS_BUTTON_SHIFT_UP;
            else if (strcmp(s, "down") == 0)
                out->buttons_once = RS_BUTTON_SHIFT_DOWN;
            else {
                size_t mark = rs_json_ctx_push_key(c, "shift");
                rs_json_fail(c, RS_ERR_RANGE, "\"%s\" is not \"up\" or \"down\"", s);
                rs_json_ctx_pop(c, mark);
            }
        }
    }
    if (c->status != RS_OK)
        return false;
    out->tick = first_tick_at(t, hz);
    out->in = rs_input_quantise(ctl->steer, ctl->throttle, ctl->brake, ctl->clutch, ctl->handbrake);
    out->in.gear = (int8_t)ctl->gear;
    out->in.buttons = 0;
    return true;
}

static bool parse_car(rs_json_ctx *c, const rs_json *obj, const rs_scenario *sc,
                      const char *base_dir, sc_car *car)
{
    static const char *const keys[] = {"car", "spawn", "inputs"};
    const char *path;
    if (!rs_json_as_kind(c, obj, RS_JSON_OBJECT) ||
        !rs_json_check_keys(c, obj, keys, sizeof keys / sizeof keys[0]))
        return false;
    if (!rs_json_get_string(c, obj, "car", RS_SCENARIO_PATH_MAX - 1, &path))
        return false;
    if (!*path || !join_path(car->path, sizeof car->path, base_dir, path)) {
        size_t mark = rs_json_ctx_push_key(c, "car");
        rs_json_fail(c, RS_ERR_RANGE, "path is empty or too long");
        rs_json_ctx_pop(c, mark);
        return false;
    }

    car->spawn = rs_car_spawn_default();
    car->spawn.pos_m[0] = car->spawn.pos_m[1] = car->spawn.pos_m[2] = 0.0;
    car->spawn.yaw_rad = 0.0;
    car->spawn.speed_m_s = 0.0;
    car->spawn.gear = 0;
    car->spawn.transmission = RS_TRANSMISSION_AUTO;
    car->spawn.clutch_mode = RS_CLUTCH_AUTO;
    if (rs_json_get(obj, "spawn")) {
        const rs_json *sp = rs_json_get_object(c, obj, "spawn");
        if (!sp)
            return false;
        size_t mark = rs_json_ctx_push_key(c, "spawn");
        bool ok = parse_spawn(c, sp, &car->spawn);
        rs_json_ctx_pop(c, mark);
        if (!ok)
            return false;
    }

    const rs_json *inputs = rs_json_get_array(c, obj, "inputs", 0, RS_SCENARIO_MAX_STEPS);
    if (!inputs)
        return false;
    size_t n = rs_json_count(inputs);
    if (n) {
        car->steps = calloc(n, sizeof *car->steps);
        if (!car->steps)
            return rs_json_fail(c, RS_ERR_NOMEM, "out of memory");
    }
    controls ctl = {0.0, 0.0, 0.0, 0.0, 0.0, RS_GEAR_KEEP};
    double prev_t = -1.0;
    size_t mark = rs_json_ctx_push_key(c, "inputs");
    for (size_t i = 0; i < n; i++) {
        const rs_json *e = rs_json_at(inputs, i);
        size_t m2 = rs_json_ctx_push_index(c, i);
        bool ok = parse_step(c, e, sc->duration_s, prev_t, sc->tick_hz, &ctl, &car->steps[i]);
        rs_json_ctx_pop(c, m2);
        if (!ok)
            break;
        prev_t = rs_json_number(rs_json_get(e, "t_s"));
        car->n_steps = (uint32_t)(i + 1);
    }
    rs_json_ctx_pop(c, mark);
    return c->status == RS_OK;
}

rs_status rs_scenario_parse(const char *text, size_t len, const char *name, const char *base_dir,
                            rs_scenario **out, char *err, size_t err_len)
{
    static const char *const keys[] = {"description", "tick_hz", "substeps", "duration_s", "cars"};
    rs_json_doc *doc = NULL;
    rs_scenario *sc = NULL;
    rs_status st;

    *out = NULL;
    if (err_len)
        err[0] = '\0';
    st = rs_json_parse(text, len, name, &doc, err, err_len);
    if (st != RS_OK)
        return st;

    rs_json_ctx c = rs_json_ctx_init(name, err, err_len);
    const rs_json *root = rs_json_root(doc);
    int64_t hz = 60, sub = 4;
    const rs_json *cars;

    if (!rs_json_as_kind(&c, root, RS_JSON_OBJECT) ||
        !rs_json_check_keys(&c, root, keys, sizeof keys / sizeof keys[0]))
        goto fail;
    const char *description;
    if (rs_json_get(root, "description") &&
        !rs_json_get_string(&c, root, "description", 100000, &description))
        goto fail;
    sc = calloc(1, sizeof *sc);
    if (!sc) {
        rs_json_fail(&c, RS_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (rs_json_get(root, "tick_hz") && !rs_json_get_integer(&c, root, "tick_hz", 1, 10000, &hz))
        goto fail;
    if (rs_json_get(root, "substeps") && !rs_json_get_integer(&c, root, "substeps", 1, 64, &sub))
        goto fail;
    sc->tick_hz = (uint32_t)hz;
    sc->substeps = (uint32_t)sub;
    if (!rs_json_get_number(&c, root, "duration_s", 0.0, RS_SCENARIO_MAX_DURATION_S, &sc->duration_s))
        goto fail;
    sc->ticks = first_tick_at(sc->duration_s, sc->tick_hz);

    if (!(cars = rs_json_get_array(&c, root, "cars", 1, RS_SCENARIO_MAX_CARS)))
        goto fail;
    sc->cars = calloc(rs_json_count(cars), sizeof *sc->cars);
    if (!sc->cars) {
        rs_json_fail(&c, RS_ERR_NOMEM, "out of memory");
        goto fail;
    }
    size_t mark = rs_json_ctx_push_key(&c, "cars");
    for (size_t i = 0; i < rs_json_count(cars); i++) {
        size_t m2 = rs_json_ctx_push_index(&c, i);
        sc->n_cars = (uint32_t)(i + 1);
        bool ok = parse_car(&c, rs_json_at(cars, i), sc, base_dir, &sc->cars[i]);
        rs_json_ctx_pop(&c, m2);
        if (!ok)
            break;
    }
    rs_json_ctx_pop(&c, mark);
    if (c.status != RS_OK)
        goto fail;

    rs_json_free(doc);
    *out = sc;
    return RS_OK;
fail:
    st = c.status != RS_OK ? c.status : RS_ERR_PARSE;
    rs_json_free(doc);
    rs_scenario_destroy(sc);
    return st;
}

rs_status rs_scenario_load(const char *path, rs_scenario **out, char *err, size_t err_len)
{
    char *text = NULL, base[RS_SCENARIO_PATH_MAX];
    size_t len = 0;
    rs_status st;

    *out = NULL;
    st = rs_read_file(path, RS_JSON_MAX_BYTES, &text, &len, err, err_len);
    if (st != RS_OK)
        return st;

    /* Car paths are relative to the scenario's folder. */
    snprintf(base, sizeof base, "%s", path);
    char *slash = strrchr(base, '/');
    if (slash)
        *(slash == base ? slash + 1 : slash) = '\0';
    else
        base[0] = '\0';
    st = rs_scenario_parse(text, len, path, base, out, err, err_len);
    free(text);
    return st;
}

void rs_scenario_destroy(rs_scenario *sc)
{
    if (!sc)
        return;
    if (sc->cars)
        for (uint32_t i = 0; i < sc->n_cars; i++)
            free(sc->cars[i].steps);
    free(sc->cars);
    free(sc);
}

uint32_t rs_scenario_car_count(const rs_scenario *sc) { return sc->n_cars; }
uint64_t rs_scenario_ticks(const rs_scenario *sc) { return sc->ticks; }
uint32_t rs_scenario_tick_hz(const rs_scenario *sc) { return sc->tick_hz; }
uint32_t rs_scenario_substeps(const rs_scenario *sc) { return sc->substeps; }

const char *rs_scenario_car_path(const rs_scenario *sc, uint32_t car)
{
    return car < sc->n_cars ? sc->cars[car].path : "";
}

rs_input rs_scenario_input(const rs_scenario *sc, uint32_t car, uint64_t tick)
{
    if (car >= sc->n_cars)
        return rs_input_default();
    const sc_car *c = &sc->cars[car];
    /* Last step with steps[k].tick <= tick (binary search). */
    uint32_t lo = 0, hi = c->n_steps;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->steps[mid].tick <= tick)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return rs_input_default();
    /* Several steps may start on the same tick: the last one wins, but a
     * shift button from any of them is pressed on that tick. */
    const sc_step *s = &c->steps[lo - 1];
    rs_input in = s->in;
    if (s->tick == tick)
        for (uint32_t k = lo; k-- > 0 && c->steps[k].tick == tick;)
            in.buttons |= c->steps[k].buttons_once;
    return in;
}

/* ---------------------------------------------------------------- running */

const char *rs_scenario_csv_header(void)
{
    return "tick,t_s,car,x_m,y_m,z_m,yaw_rad,speed_m_s,forward_speed_m_s,engine_rpm,gear,"
           "steer,throttle,brake,"
           "load_fl_n,load_fr_n,load_rl_n,load_rr_n,"
           "slip_ratio_fl,slip_ratio_fr,slip_ratio_rl,slip_ratio_rr,"
           "slip_angle_fl_rad,slip_angle_fr_rad,slip_angle_rl_rad,slip_angle_rr_rad,"
           "omega_fl_rad_s,omega_fr_rad_s,omega_rl_rad_s,omega_rr_rad_s";
}

static int write_row(FILE *f, uint64_t tick, double t, uint32_t car, const rs_input *in,
                     const rs_car_state *s)
{
    const rs_wheel_state *w = s->wheels;
    int n = fprintf(f,
                    "%" PRIu64 ",%.6f,%u,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.3f,%d,%.5f,%.5f,%.5f,"
                    "%.3f,%.3f,%.3f,%.3f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.4f,%.4f,%.4f,%.4f\n",
                    tick, t, car, s->pos_m[0], s->pos_m[1], s->pos_m[2], s->yaw_rad, s->speed_m_s,
                    s->forward_speed_m_s, s->engine_rpm, s->gear, in->steer / (double)RS_STEER_MAX,
                    in->throttle / (double)RS_PEDAL_MAX, in->brake / (double)RS_PEDAL_MAX,
                    w[0].load_n, w[1].load_n, w[2].load_n, w[3].load_n, w[0].slip_ratio,
                    w[1].slip_ratio, w[2].slip_ratio, w[3].slip_ratio, w[0].slip_angle_rad,
                    w[1].slip_angle_rad, w[2].slip_angle_rad, w[3].slip_angle_rad,
                    w[0].omega_rad_s, w[1].omega_rad_s, w[2].omega_rad_s, w[3].omega_rad_s);
    return n < 0 ? -1 : 0;
}

rs_status rs_scenario_run(const rs_scenario *sc, const rs_scenario_output *out, uint64_t *hash_out,
                          char *err, size_t err_len)
{
    rs_car_params **params = NULL;
    rs_world *world = NULL;
    rs_status st = RS_OK;
    FILE *tel = out ? out->telemetry : NULL, *trace = out ? out->trace : NULL;

    if (err_len)
        err[0] = '\0';
    params = calloc(sc->n_cars, sizeof *params);
    if (!params) {
        rs_errf(err, err_len, "out of memory");
        return RS_ERR_NOMEM;
    }
    /* One parameter object per distinct file, shared by the cars using it. */
    for (uint32_t i = 0; i < sc->n_cars; i++) {
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(sc->cars[i].path, sc->cars[j].path) == 0) {
                params[i] = params[j];
                break;
            }
        if (!params[i]) {
            char why[512];
            if ((st = rs_car_params_load(sc->cars[i].path, &params[i], why, sizeof why)) != RS_OK) {
                rs_errf(err, err_len, "cars[%u].car: %s", i, why);
                goto done;
            }
        }
    }

    rs_world_def def = rs_world_default();
    def.tick_hz = sc->tick_hz;
    def.substeps = sc->substeps;
    def.max_cars = sc->n_cars;
    if ((st = rs_world_create(&def, &world)) != RS_OK) {
        rs_errf(err, err_len, "cannot create the world: %s", rs_status_str(st));
        goto done;
    }
    for (uint32_t i = 0; i < sc->n_cars; i++) {
        rs_car_id id;
        if ((st = rs_world_add_car(world, params[i], &sc->cars[i].spawn, &id)) != RS_OK) {
            rs_errf(err, err_len, "cars[%u]: cannot add the car: %s", i, rs_status_str(st));
            goto done;
        }
    }

    if (tel && fprintf(tel, "%s\n", rs_scenario_csv_header()) < 0)
        goto write_error;
    for (uint64_t n = 0; n < sc->ticks; n++) {
        for (uint32_t i = 0; i < sc->n_cars; i++) {
            rs_input in = rs_scenario_input(sc, i, n);
            rs_world_set_input(world, (rs_car_id){(uint16_t)(i + 1)}, &in);
        }
        if ((st = rs_world_step(world)) != RS_OK) {
            rs_errf(err, err_len, "tick %" PRIu64 " (t = %.4f s): %s", n + 1,
                    (double)(n + 1) / sc->tick_hz, rs_status_str(st));
            goto done;
        }
        if (tel) {
            for (uint32_t i = 0; i < sc->n_cars; i++) {
                rs_car_state s;
                rs_input in = rs_scenario_input(sc, i, n);
                rs_world_car_state(world, (rs_car_id){(uint16_t)(i + 1)}, &s);
                if (write_row(tel, n + 1, (double)(n + 1) / sc->tick_hz, i, &in, &s) != 0)
                    goto write_error;
            }
        }
        if (trace && rs_trace_write(trace, world) != 0)
            goto write_error;
    }
    if (hash_out)
        *hash_out = rs_world_hash(world);
    st = RS_OK;
    goto done;
write_error:
    rs_errf(err, err_len, "error writing output: %s", strerror(errno));
    st = RS_ERR_IO;
done:
    rs_world_destroy(world);
    if (params) {
        for (uint32_t i = 0; i < sc->n_cars; i++) {
            int shared = 0;
            for (uint32_t j = 0; j < i; j++)
                shared |= params[j] == params[i];
            if (!shared)
                rs_car_params_destroy(params[i]);
        }
        free(params);
    }
    return st;
}

/* ------------------------------------------------------------------ trace */

size_t rs_trace_format(const rs_world *world, char *buf, size_t cap)
{
    uint64_t tick = rs_world_tick(world);
    uint32_t n = rs_world_car_count(world);
    char line[80];
    size_t len = 0;
    /* Two passes: measure, then write only if everything fits. */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && (!buf || len >= cap))
            return len;
        len = 0;
        for (uint32_t i = 0; i <= n; i++) {
            int k;
            if (i < n)
                k = snprintf(line, sizeof line, "%" PRIu64 " %u %016" PRIx64 "\n", tick, i,
                             rs_world_car_hash(world, (rs_car_id){(uint16_t)(i + 1)}));
            else
                k = snprintf(line, sizeof line, "%" PRIu64 " world %016" PRIx64 "\n", tick,
                             rs_world_hash(world));
            if (pass == 1)
                memcpy(buf + len, line, (size_t)k);
            len += (size_t)k;
        }
    }
    buf[len] = '\0';
    return len;
}

int rs_trace_write(FILE *f, const rs_world *world)
{
    uint64_t tick = rs_world_tick(world);
    uint32_t n = rs_world_car_count(world);
    for (uint32_t i = 0; i < n; i++)
        if (fprintf(f, "%" PRIu64 " %u %016" PRIx64 "\n", tick, i,
                    rs_world_car_hash(world, (rs_car_id){(uint16_t)(i + 1)})) < 0)
            return -1;
    return fprintf(f, "%" PRIu64 " world %016" PRIx64 "\n", tick, rs_world_hash(world)) < 0 ? -1 : 0;
}

void rs_hash_line(uint64_t hash, char buf[32])
{
    snprintf(buf, 32, "hash=%016" PRIx64, hash);
}
