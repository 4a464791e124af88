/*
 * Where the project's data (cars/, tracks/, tyres/) is, found the same way
 * by every program that takes a car or a track by its bare name
 * (raceserver, racectl, racesim).
 */
#ifndef RACESIM_BASE_DATA_DIR_H
#define RACESIM_BASE_DATA_DIR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the data folder into out (cap bytes): $RS_DATA_DIR when it is set,
 * else <program's folder>/../share/racesim/data when that is a folder (an
 * installed copy), else built_in (the source tree's data/ the program was
 * built from; may be NULL) when that is a folder, else "data". */
void rs_data_dir_find(const char *built_in, char *out, size_t cap);

/* The web page's folder, found the same way: $RS_WEB_DIR, else
 * <program's folder>/../share/racesim/web, else built_in (the build tree's
 * web/, where the build puts the page and its WebAssembly), else "" (no
 * page). */
void rs_web_dir_find(const char *built_in, char *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
