/*
 * The racesim command's subcommands (the argument helpers they use are
 * racesim/base/cli.h). Each subcommand takes the arguments after its own
 * name and returns the process exit status: 0 success, 1 failure (a file
 * could not be loaded, a simulation went non-finite), 2 usage error.
 */
#ifndef RS_CMD_H
#define RS_CMD_H

#include "racesim/base/cli.h"

int rs_cmd_tire(int argc, char **argv);
int rs_cmd_maneuver(int argc, char **argv);
int rs_cmd_run(int argc, char **argv);
int rs_cmd_golden(int argc, char **argv);
int rs_cmd_demo(int argc, char **argv);
int rs_cmd_track(int argc, char **argv); /* cmd_track.c */
int rs_cmd_race(int argc, char **argv);  /* cmd_race.c */

#endif
