/*
 * Importing a circuit from the public racetrack database's CSV format
 * (`x_m,y_m,w_tr_right_m,w_tr_left_m`: a closed centre line with the widths
 * to the right and left edges) into the project's track JSON
 * (docs/TRACKS.md), with sensible defaults for everything the CSV does not
 * say: kerbs at tight corners, run-off, barriers, timing lines and a grid.
 * Used by `racesim track import` and the tests.
 */
#ifndef RS_TRACK_IMPORT_H
#define RS_TRACK_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"

typedef struct rs_track_import_options {
    const char *name;         /* display name; NULL: the CSV file's stem */
    double kerb_width_m;      /* kerbs at tight corners, both sides; 0 = none. Usually 1 */
    double kerb_radius_m;     /* kerbs where the centre line's radius is below this. Usually 100 */
    double barrier_offset_m;  /* generated barriers beyond each edge. Usually 10 */
    uint32_t max_grid;        /* grid slots wanted, 1..24. Usually 24 */
} rs_track_import_options;

rs_track_import_options rs_track_import_default(void);

/* Converts CSV text (csv_name is used in messages and for the default name)
 * into track JSON, then loads the result to prove it valid; where a default
 * does not fit the circuit (a barrier offset too wide for a tight spot, a
 * sector line that would cross the track twice, fewer grid slots than
 * wanted) it is adjusted and tried again. On success *json_out is a
 * NUL-terminated string the caller frees with free(). On error returns a
 * status, writes a message naming the CSV line or the track field into err,
 * and leaves *json_out NULL. */
rs_status rs_track_import_csv(const char *csv, size_t len, const char *csv_name,
                              const rs_track_import_options *options, char **json_out,
                              char *err, size_t err_len);

/* The same from a file to a file. */
rs_status rs_track_import_file(const char *csv_path, const char *json_path,
                               const rs_track_import_options *options, char *err,
                               size_t err_len);

#endif
