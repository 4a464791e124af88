/*
 * The JSON reading that raceserver's configuration files share
 * (config.c, config_weekend.c): values checked as they are read, and
 * every refusal worded "source: field: what is wrong". Private to the
 * configuration: nothing else of the program includes <cjson/cJSON.h>.
 */
#ifndef RS_APP_CONFIG_JSON_H
#define RS_APP_CONFIG_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "racesim/base/err.h"

typedef struct jctx {
    const char *source; /* the file or option the values come from */
    char *err;
    size_t err_len;
} jctx;

/* snprintf that cuts: paths are bounded by RS_CFG_PATH_MAX, and a path cut
 * short simply fails to open, with its name in the message. */
void rs_cfg_fmt(char *dst, size_t cap, const char *format, ...) RS_PRINTF(3, 4);
void rs_cfg_copy(char *dst, size_t cap, const char *src);

/* "source: field: what is wrong" into the caller's err; returns false. */
bool jfail(const jctx *j, const char *field, const char *fmt, ...) RS_PRINTF(3, 4);
/* An integer in lo..hi. */
bool j_u32(const jctx *j, const cJSON *it, const char *field, uint32_t lo, uint32_t hi,
           uint32_t *out);
/* A string of min..max bytes that fits cap. */
bool j_str(const jctx *j, const cJSON *it, const char *field, size_t min, size_t max, char *out,
           size_t cap);
bool j_bool(const jctx *j, const cJSON *it, const char *field, bool *out);

/* A room's "weekend": its sessions (config_weekend.c). */
bool rs_cfg_json_weekend(const jctx *j, const cJSON *it, const char *field, rs_cfg_room *r);
/* A room's "cars" (data_dir for bare names) and "entry_list" (config_weekend.c);
 * the entries' cars are named as the car files are, checked against "cars" once
 * the room is read (rs_cfg_weekend_check). */
bool rs_cfg_json_cars(const jctx *j, const cJSON *it, const char *field, const char *data_dir,
                      rs_cfg_room *r);
bool rs_cfg_json_entries(const jctx *j, const cJSON *it, const char *field, rs_cfg_room *r);
/* A room's "chat" and "votes" (config_weekend.c): an object of settings, or
 * false for none. */
bool rs_cfg_json_chat(const jctx *j, const cJSON *it, const char *field, rs_cfg_room *r);
bool rs_cfg_json_votes(const jctx *j, const cJSON *it, const char *field, rs_cfg_room *r);

/* A room's "race_control" (config_weekend.c). */
bool rs_cfg_json_race_control(const jctx *j, const cJSON *it, const char *field,
                              rs_cfg_room *r);
/* The cross-field rules of a room's cars and entries (its entries' cars
 * resolved to indices); false with the words in err. */
bool rs_cfg_weekend_check(const rs_cfg_room *r, char *err, size_t err_len);
/* "championships" (config_results.c), and their cross-field rules once the
 * rooms are known: every room they name is configured. */
bool rs_cfg_json_championships(const jctx *j, const cJSON *it, rs_server_config *c);
bool rs_cfg_championships_check(const rs_server_config *c, char *err, size_t err_len);
/* The path of a track or car given as a bare name or a file. */
void rs_cfg_data_path(char *dst, size_t cap, const char *data_dir, const char *kind,
                      const char *value);

#endif
