/*
 * racectl standings: a championship's standings, computed from the stored
 * results (racesim/championship.h). A championship is configuration, not
 * data: the command reads it from raceserver's configuration file
 * (--config, the file the server runs with; docs/RESULTS.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "racectl.h"
#include "racesim/base/data_dir.h"
#include "racesim/championship.h"

static const char help[] =
    "usage: racectl --db FILE standings NAME --config SERVER.json [--class C] [--json]\n"
    "\n"
    "The standings of championship NAME as raceserver's configuration file defines it\n"
    "(\"championships\": rooms, scoring sessions, points, pole and fastest-lap points):\n"
    "position (equal points share it), driver, class, points, events, wins, poles,\n"
    "fastest laps. --class C: the standings of class C, by positions in class.\n"
    "Exit status 1 when the file has no such championship.\n";

int rc_cmd_standings(rc_ctx *c, int argc, char **argv)
{
    const char *cmd = "standings";
    if (rc_help_asked(argc, argv, help))
        return RC_EXIT_OK;
    bool json = rc_take_flag(&argc, argv, "--json") || c->json;
    const char *name = NULL, *config = NULL, *cls = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0 || strcmp(argv[i], "--class") == 0) {
            bool is_config = argv[i][3] == 'o';
            const char *v = rs_opt_value(cmd, argc, argv, &i);
            if (!v)
                return RC_EXIT_USAGE;
            if (is_config)
                config = v;
            else
                cls = v;
        } else if (argv[i][0] == '-' || name) {
            return rs_usage_error(cmd, "unexpected argument '%s'", argv[i]);
        } else {
            name = argv[i];
        }
    }
    if (!name)
        return rs_usage_error(cmd, "which championship? (NAME)");
    if (!config)
        return rs_usage_error(cmd, "--config SERVER.json is needed: championships are "
                                   "defined in raceserver's configuration");
    if (!c->store)
        return rs_usage_error(cmd, "--db FILE is needed");
    static rs_server_config cfg; /* large */
    char data[1024], err[512];
    rs_data_dir_find(RS_DATA_DIR, data, sizeof data);
    rs_config_default(&cfg, data);
    if (!rs_config_apply_file(&cfg, config, err, sizeof err) ||
        !rs_config_check(&cfg, err, sizeof err))
        return rs_fail(cmd, "%s", err);
    const rs_cfg_championship *ch = NULL;
    for (uint32_t i = 0; i < cfg.championship_count && !ch; i++)
        if (rs_proto_name_equal(cfg.championships[i].name, name))
            ch = &cfg.championships[i];
    if (!ch) {
        fprintf(stderr, "racectl standings: %s has no championship '%s'; it has:", config, name);
        for (uint32_t i = 0; i < cfg.championship_count; i++)
            fprintf(stderr, " '%s'", cfg.championships[i].name);
        fprintf(stderr, "%s\n", cfg.championship_count ? "" : " none");
        return RC_EXIT_FAIL;
    }
    const char *rooms[16];
    for (uint32_t k = 0; k < ch->room_count; k++)
        rooms[k] = ch->rooms[k];
    rs_championship_def def = {.name = ch->name, .rooms = rooms, .room_count = ch->room_count,
                               .session_types = ch->session_types,
                               .points = ch->points_count ? ch->points : NULL,
                               .points_count = ch->points_count,
                               .pole_points = ch->pole_points,
                               .fastest_lap_points = ch->fastest_lap_points};
    uint32_t total = 0;
    if (rs_store_standings(c->store, &def, cls, 0, NULL, 0, &total, err, sizeof err) != RS_OK)
        return rs_fail(cmd, "%s", err);
    rs_championship_row *rows = calloc(total ? total : 1, sizeof *rows);
    if (!rows)
        return rs_fail(cmd, "out of memory");
    if (rs_store_standings(c->store, &def, cls, 0, rows, total, &total, err, sizeof err) !=
        RS_OK) {
        free(rows);
        return rs_fail(cmd, "%s", err);
    }
    if (json) {
        printf("{\"championship\": ");
        rc_json_str(stdout, ch->name);
        printf(", \"class\": ");
        if (cls)
            rc_json_str(stdout, cls);
        else
            printf("null");
        printf(", \"standings\": [");
        for (uint32_t i = 0; i < total; i++) {
            const rs_championship_row *r = &rows[i];
            printf("%s\n  {\"position\": %u, \"driver\": ", i ? "," : "", (unsigned)r->position);
            rc_json_str(stdout, r->name);
            printf(", \"player_id\": %lld, \"guest\": %s, \"class\": ", (long long)r->player_id,
                   r->guest ? "true" : "false");
            if (r->class_name[0])
                rc_json_str(stdout, r->class_name);
            else
                printf("null");
            printf(", \"points\": %u, \"events\": %u, \"wins\": %u, \"poles\": %u, "
                   "\"fastest_laps\": %u}",
                   (unsigned)r->points, (unsigned)r->events, (unsigned)r->wins,
                   (unsigned)r->poles, (unsigned)r->fastest_laps);
        }
        printf("%s]}\n", total ? "\n" : "");
    } else {
        printf("%s%s%s\n\n%4s  %-24s %-16s %6s %6s %4s %5s %7s\n", ch->name,
               cls ? ", class " : "", cls ? cls : "", "POS", "DRIVER", "CLASS", "POINTS",
               "EVENTS", "WINS", "POLES", "FASTEST");
        for (uint32_t i = 0; i < total; i++) {
            const rs_championship_row *r = &rows[i];
            char who[48];
            snprintf(who, sizeof who, "%s%s", r->name, r->guest ? " (guest)" : "");
            printf("%4u  %-24s %-16s %6u %6u %4u %5u %7u\n", (unsigned)r->position, who,
                   r->class_name[0] ? r->class_name : "-", (unsigned)r->points,
                   (unsigned)r->events, (unsigned)r->wins, (unsigned)r->poles,
                   (unsigned)r->fastest_laps);
        }
        if (total == 0)
            printf("(no results yet)\n");
    }
    free(rows);
    return RC_EXIT_OK;
}
