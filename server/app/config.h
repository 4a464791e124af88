/*
 * raceserver's configuration: defaults, a JSON file, command-line
 * overrides, and validation that names the bad field and its legal range
 * (docs/RACESERVER.md lists every key).
 *
 * Order of precedence: built-in defaults, then the file given with
 * --config, then the command line. Room settings at the file's top level
 * (track, car, laps, ...) are the defaults of every room; a room in
 * "rooms" may override them; the same options on the command line apply to
 * every room. Values are checked where they are read, so the message names
 * the file or option they came from.
 */
#ifndef RS_APP_CONFIG_H
#define RS_APP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"
#include "racesim/protocol.h"
#include "racesim/room.h"

#define RS_CFG_PATH_MAX 1024
#define RS_CFG_MAX_ROOMS 64
#define RS_CFG_DEFAULT_PORT 27960
#define RS_CFG_MAX_CARS 8      /* cars one room offers */
#define RS_CFG_MAX_CHAMPIONSHIPS 8

/* A car a room offers ("cars"). */
typedef struct rs_cfg_car {
    char name[64];                 /* as written in the file: entries name their car so */
    char path[RS_CFG_PATH_MAX];    /* car JSON file (a bare name: data/cars/NAME.json) */
    char class_name[33];           /* "" = no class */
    double ballast_kg;             /* balance of performance: 0..500 */
    double restrictor_pct;         /* 0..90 */
} rs_cfg_car;

/* One driver of a room's entry list. */
typedef struct rs_cfg_entry {
    char player[33];               /* a registered player's name */
    char car[64];                  /* one of the room's cars, as "cars" names it ("" = the
                                      first): rs_cfg_car_index */
    uint32_t number;               /* race number 0..999 */
    bool bop;                      /* its own balance of performance: */
    double ballast_kg, restrictor_pct;
} rs_cfg_entry;

typedef struct rs_cfg_room {
    char name[33];                 /* 1..32 bytes, unique */
    char track[RS_CFG_PATH_MAX];   /* track JSON file (a bare name: data/tracks/NAME.json) */
    char car[RS_CFG_PATH_MAX];     /* car JSON file (a bare name: data/cars/NAME.json) */
    uint32_t laps;                 /* 1..1000 */
    uint32_t max_players;          /* 1..32 (and at most the track's grid slots) */
    uint32_t start_players;        /* 0..max_players; 0 = max_players */
    uint32_t spectators;           /* 0..1024 */
    uint32_t lobby_s;              /* 1..600: the countdown starts this long after the first
                                      player joined even if start_players is not reached */
    uint32_t load_wait_s;          /* 0..600: a due race waits at most this long for every
                                      player to hold the track and car blocks */
    uint32_t countdown_s;          /* 1..60: from the world's creation to lights out */
    uint32_t finish_timeout_s;     /* 1..3600: a session ends at most this long after its
                                      chequered flag */
    char password[65];             /* "" = none */
    /* "weekend": the sessions the room runs in order (docs/RACESERVER.md,
     * "Weekends"); none = one race of laps, over and over */
    uint32_t session_count;        /* 0..RS_PROTO_MAX_SESSIONS */
    rs_proto_session_def sessions[RS_PROTO_MAX_SESSIONS];
    /* "cars": several cars in classes (none: car alone, no class) */
    uint32_t car_count;            /* 0..RS_CFG_MAX_CARS */
    rs_cfg_car cars[RS_CFG_MAX_CARS];
    /* "entry_list" */
    uint32_t entry_count;          /* 0..32 */
    bool entries_only;             /* only the entry list drives */
    rs_cfg_entry entries[32];
    /* "race_control": penalties in races (docs/RACESERVER.md, "Race control");
     * all off when absent. A jump start rule makes the room's starts free. */
    rs_room_race_control race_control;
    /* "chat" and "votes" (docs/RACESERVER.md, "Chat and votes") */
    rs_room_chat_config chat;
    rs_room_vote_config votes;
} rs_cfg_room;

/* A championship ("championships", config_results.c; docs/RESULTS.md). */
typedef struct rs_cfg_championship {
    char name[33];                 /* by the name rules, unique */
    uint32_t room_count;           /* 1..16 */
    char rooms[16][33];            /* rooms whose sessions count (configured rooms) */
    uint32_t session_types;        /* mask of 1u << rs_store_session_type; 0 = races */
    uint32_t points_count;         /* 1..64; 0 = the default 25-18-15-12-10-8-6-4-2-1 */
    uint32_t points[64];
    uint32_t pole_points;          /* 0..1000 */
    uint32_t fastest_lap_points;   /* 0..1000 */
} rs_cfg_championship;

typedef enum rs_guest_policy {
    RS_GUESTS_ALLOW = 0, /* a HELLO without a token plays as a guest (player id 0) */
    RS_GUESTS_DENY = 1   /* only registered players (needs the database) */
} rs_guest_policy;

/* rs_server_config.workers when neither the file nor the command line says. */
#define RS_CFG_WORKERS_AUTO UINT32_MAX
#define RS_CFG_MAX_WORKERS 64u

typedef struct rs_server_config {
    char bind[64];                 /* "" = any address */
    uint16_t port;                 /* 0 = any free port */
    uint32_t tick_hz;              /* 1..1000 */
    uint32_t max_clients;          /* 1..4095 */
    char db[RS_CFG_PATH_MAX];      /* SQLite file */
    char key_file[RS_CFG_PATH_MAX];/* the server's secret key (server_key.h) */
    uint32_t max_per_address;      /* connections from one IPv4 address, 1..max_clients */
    uint32_t socket_buffer_kib;    /* the UDP socket's receive buffer, 64..262144 KiB */
    uint32_t requests_per_s;       /* requests per address and second, 1..10000 */
    uint32_t registrations_per_hour;   /* per address, 1..10000 */
    uint32_t registrations_per_minute; /* in all, 1..100000 */
    bool print_public_key;         /* --print-public-key: print it and exit */
    bool no_db;                    /* run without persistence */
    rs_log_level log_level;
    rs_log_format log_format;      /* text or json lines */
    uint32_t stats_interval_s;     /* 0 = no stats line */
    uint32_t workers;              /* threads the rooms step on: RS_CFG_WORKERS_AUTO (one per
                                      core), 0 or 1 = on the network thread, else 2..64 */
    uint32_t overload_late_ms;     /* refuse new players while ticks start this late
                                      (overload.h); 0 = never */
    rs_guest_policy guests;
    rs_cfg_room room_defaults;     /* what a room does not say */
    uint32_t room_count;           /* 1..RS_CFG_MAX_ROOMS */
    rs_cfg_room rooms[RS_CFG_MAX_ROOMS];
    char data_dir[RS_CFG_PATH_MAX];/* where bare track and car names are looked up */
    /* The HTTP side (docs/HTTP.md): off unless http_port is set. */
    bool http;                     /* --http ADDR:PORT given */
    char http_bind[64];            /* its address ("" = every address) */
    uint16_t http_port;            /* 0 = any free port */
    uint32_t http_max_connections; /* 1..1024 */
    uint32_t http_max_per_address; /* 1..1024 (at most http_max_connections takes effect) */
    uint32_t http_requests_per_s;  /* per address, 1..10000 */
    char web_root[RS_CFG_PATH_MAX];/* the web page's folder; "" = no page */
    /* Results and championships (docs/RESULTS.md) */
    char results_dir[RS_CFG_PATH_MAX]; /* "" = no results files */
    char server_name[64];          /* "server" in results files */
    uint32_t championship_count;   /* 0..RS_CFG_MAX_CHAMPIONSHIPS */
    rs_cfg_championship championships[RS_CFG_MAX_CHAMPIONSHIPS];
    /* --demo */
    bool demo;
    uint32_t demo_bots;            /* 1..32 */
} rs_server_config;

/* The built-in defaults: port 27960, any address, 60 Hz, 512 clients,
 * racesim.db, one room "default" on data_dir/tracks/technical.json with
 * data_dir/cars/c5.json, 3 laps, 16 players, 8 spectators, info logs,
 * stats every 10 s, guests allowed. Never fails. */
void rs_config_default(rs_server_config *c, const char *data_dir);

/* Parses "ADDR:PORT" ("127.0.0.1:8080", "[::1]:8080", ":8080" for every
 * address) into addr (cap bytes) and *port. False when malformed. */
bool rs_config_parse_http(const char *text, char *addr, size_t cap, uint16_t *port);

/* Applies a JSON document (text of len bytes; source names it in messages)
 * over c. Unknown keys, wrong types and values outside their range are
 * refused: returns false with "source: field: problem" in err. */
bool rs_config_apply_json(rs_server_config *c, const char *text, size_t len, const char *source,
                          char *err, size_t err_len);

/* Reads the file at path and applies it as rs_config_apply_json does. */
bool rs_config_apply_file(rs_server_config *c, const char *path, char *err, size_t err_len);

typedef enum rs_args_result {
    RS_ARGS_OK = 0,
    RS_ARGS_HELP = 1,   /* --help was given: usage printed to stdout, exit 0 */
    RS_ARGS_ERROR = 2   /* message in err, exit 2 */
} rs_args_result;

/* The whole command line (argv[1..argc-1]): defaults for data_dir, the
 * --config file if any, then every option over it, then the cross-field
 * checks (rs_config_check). */
rs_args_result rs_config_from_args(rs_server_config *c, const char *data_dir, int argc,
                                   char **argv, char *err, size_t err_len);

/* Rules that involve several fields (unique room names, start players
 * within max players, guests denied without a database). */
bool rs_config_check(const rs_server_config *c, char *err, size_t err_len);

/* Which of the room's cars an entry's car name is: 0 for "", UINT32_MAX
 * for a name the room does not offer (rs_config_check refuses that). */
uint32_t rs_cfg_car_index(const rs_cfg_room *r, const char *car);

/* The championship that counts room's sessions (the first listing it), or
 * NULL (config_results.c). */
const rs_cfg_championship *rs_cfg_room_championship(const rs_server_config *c,
                                                    const char *room);

/* Prints the usage text. */
void rs_config_usage(void);

#endif
