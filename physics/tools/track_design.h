/*
 * The track designer behind `racesim track design SPEC.json OUT.json`: turns
 * a hand-written design spec (a start pose and a list of pieces: straights,
 * constant-radius arcs, clothoid transitions and corners made of both) into
 * a track file in the loader's format (docs/TRACKS.md). It closes the loop
 * by solving the lengths of the straights marked "auto", samples the pieces
 * into a centre line, and places kerbs, run-off zones, timing lines and the
 * grid by station. The spec format is described in docs/TRACK_DESIGNER.md.
 */
#ifndef RS_TRACK_DESIGN_H
#define RS_TRACK_DESIGN_H

#include <stddef.h>
#include <stdint.h>

#include "racesim/physics.h"
#include "racesim/track.h"

#define RS_TD_MAX_AUTO 2     /* straights whose length the designer solves */
#define RS_TD_MAX_CORNERS 64 /* corners listed in the summary */

/* One corner of a designed track: a run of consecutive curved pieces turning
 * the same way. */
typedef struct rs_td_corner {
    char name[33];                     /* the first piece's "name", or "" */
    uint32_t first_piece, last_piece; /* indices into the spec's pieces */
    double s_m;                        /* station where it starts */
    double angle_deg;                  /* heading change, + = left */
    double min_radius_m;               /* tightest centre-line radius */
} rs_td_corner;

/* What the designer found, for the summary it prints. */
typedef struct rs_td_info {
    double length_m;           /* closed centre-line length as written */
    uint32_t points;           /* centre-line points */
    double heading_sum_deg;    /* sum of the pieces' heading changes (+-360) */
    double min_radius_m;       /* tightest centre-line radius of any piece */
    uint32_t auto_count;       /* straights solved for closure */
    uint32_t auto_piece[RS_TD_MAX_AUTO];
    double auto_length_m[RS_TD_MAX_AUTO];
    uint32_t kerbs, runoff_zones, sector_lines, grid_slots;
    uint32_t corner_count;     /* corners found (only the first RS_TD_MAX_CORNERS listed) */
    rs_td_corner corner[RS_TD_MAX_CORNERS];
} rs_td_info;

/* Reads the design spec at spec_path, builds the track and writes it as JSON
 * to out_path. On success fills *info (may be NULL). On error returns a
 * status, writes a message naming the spec file and the piece or field into
 * err, and writes nothing to out_path (RS_ERR_IO when out_path cannot be
 * written). */
rs_status rs_track_design(const char *spec_path, const char *out_path, rs_td_info *info,
                          char *err, size_t err_len);

/* `racesim track design SPEC.json OUT.json`: argv holds the arguments after
 * "design" (a leading "design" is skipped as well). Designs the track,
 * prints a JSON summary to stdout and returns the exit status (cmd.h). */
int rs_track_design_cmd(int argc, char **argv);

#endif
