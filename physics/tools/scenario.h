/*
 * Scenario files: a world definition, cars with spawn poses and a step
 * program of inputs per car, written as JSON (format in
 * examples/scenarios/README.md). `racesim run` replays one and writes
 * telemetry CSV plus the final world hash; tests use the same code to check
 * that a replay is reproducible.
 *
 * Also the determinism trace format shared by `racesim golden --trace`,
 * `racesim run --trace` and tests/determinism/cross_check.sh: after each
 * tick, one line per car "<tick> <car> <16 hex digits of rs_world_car_hash>"
 * (tick 1-based = the tick just completed, car 0-based), then
 * "<tick> world <16 hex digits of rs_world_hash>"; a run ends with the line
 * "hash=<16 hex digits>" (the final world hash).
 */
#ifndef RS_SCENARIO_H
#define RS_SCENARIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "racesim/physics.h"

#define RS_SCENARIO_MAX_CARS 1024
#define RS_SCENARIO_MAX_STEPS 100000    /* input steps per car */
#define RS_SCENARIO_MAX_DURATION_S 86400.0
#define RS_SCENARIO_PATH_MAX 1024

typedef struct rs_scenario rs_scenario;

/* Parses scenario text. name is used in messages ("name: cars[0].inputs[2].
 * throttle: 1.5 outside 0..1"); car paths are resolved against base_dir
 * (NULL or "" = as written). Car files are not opened here (see
 * rs_scenario_run). On error returns the status, writes a message naming the
 * field into err and leaves *out NULL. Caller frees with
 * rs_scenario_destroy. */
rs_status rs_scenario_parse(const char *text, size_t len, const char *name, const char *base_dir,
                            rs_scenario **out, char *err, size_t err_len);

/* Reads and parses a file; car paths are relative to the file's folder. */
rs_status rs_scenario_load(const char *path, rs_scenario **out, char *err, size_t err_len);

/* Accepts NULL. */
void rs_scenario_destroy(rs_scenario *sc);

/* Facts about a parsed scenario. */
uint32_t rs_scenario_car_count(const rs_scenario *sc);
uint64_t rs_scenario_ticks(const rs_scenario *sc);
uint32_t rs_scenario_tick_hz(const rs_scenario *sc);
uint32_t rs_scenario_substeps(const rs_scenario *sc);
/* Resolved path of car i's definition; borrowed until rs_scenario_destroy. */
const char *rs_scenario_car_path(const rs_scenario *sc, uint32_t car);

/* The input program of car i for tick n (0-based: the tick that runs from
 * n / tick_hz seconds): the last step with t_s <= n / tick_hz, quantised.
 * A shift button is pressed only on the first tick of its step. */
rs_input rs_scenario_input(const rs_scenario *sc, uint32_t car, uint64_t tick);

/* How a run reports. Any field may be NULL. */
typedef struct rs_scenario_output {
    FILE *telemetry; /* CSV: header, then one row per car per tick */
    FILE *trace;     /* determinism trace lines (format above), without the hash= line */
} rs_scenario_output;

/* The telemetry CSV header line (no newline). Never fails. */
const char *rs_scenario_csv_header(void);

/* Loads the cars, builds the world, runs every tick and writes the outputs.
 * *hash_out gets the final world hash. On error (a car file fails to load:
 * RS_ERR_IO/PARSE/...; the state went NaN/Inf: RS_ERR_NONFINITE; a write
 * failed: RS_ERR_IO) returns the status with a message in err. */
rs_status rs_scenario_run(const rs_scenario *sc, const rs_scenario_output *out, uint64_t *hash_out,
                          char *err, size_t err_len);

/* Formats the trace lines for the tick the world just completed into buf
 * (NUL-terminated). Returns the length without the NUL; writes nothing
 * when buf is NULL or cap is too small (size-query idiom). Never fails. */
size_t rs_trace_format(const rs_world *world, char *buf, size_t cap);

/* Writes the same lines to f. Returns 0, or -1 on a write error. */
int rs_trace_write(FILE *f, const rs_world *world);

/* Formats "hash=<16 hex digits>" (no newline) into buf[32]. */
void rs_hash_line(uint64_t hash, char buf[32]);

#endif
