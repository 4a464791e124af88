/*
 * A headless bot: one SDK client that drives itself. Used by racebot, by
 * raceserver --demo (a field of bots over loopback) and by the load tester
 * (many light bots), so all three drive through the real SDK and transport.
 *
 * An AI bot builds a racing line for its car on the room's track whenever a
 * new world arrives and drives with the AI driver (racesim/driver.h) on the
 * predicted world, one input per predicted tick. A light bot spends almost
 * no CPU on driving and needs no world (pair it with cfg.simulate = false):
 * it weaves around straight ahead at part throttle with braking phases,
 * changing its controls as often as a real driver does, so a load test's
 * traffic is as large as a real race's.
 *
 * Library rs_bot (static, client_sdk/bot), header racesim/bot.h. Thread rules as the SDK's:
 * a bot belongs to one thread at a time; different bots share nothing.
 */
#ifndef RACESIM_BOT_H
#define RACESIM_BOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "racesim/client.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rs_bot rs_bot;

/* Called from rs_bot_update for every client event, after the bot has
 * looked at it itself. ev is borrowed for the call. Must not destroy the bot. */
typedef void (*rs_bot_event_fn)(void *ctx, rs_bot *bot, const rs_client_event *ev);

/* Connects a bot over ENet to host:port (rs_client_connect; cfg is copied,
 * its input_fn is replaced by the bot's own). ai: drive with the AI driver,
 * else the light driver. On error returns a status, writes err, *out NULL.
 * Caller frees with rs_bot_destroy. */
rs_client_status rs_bot_create(const rs_client_config *cfg, const char *host, uint16_t port,
                               bool ai, int64_t now_us, rs_bot **out, char *err,
                               size_t err_len);

/* The same over a caller-supplied transport (rs_client_create_custom); the
 * caller drives the link through rs_bot_client. */
rs_client_status rs_bot_create_custom(const rs_client_config *cfg, const rs_client_transport *t,
                                      bool ai, int64_t now_us, rs_bot **out, char *err,
                                      size_t err_len);

/* Events go to fn (NULL: the bot keeps only its own counters). */
void rs_bot_set_event_fn(rs_bot *bot, rs_bot_event_fn fn, void *ctx);

/* Updates the client (which asks the bot for each predicted tick's input),
 * then hands every queued event to the event function. Returns false once
 * the connection is over (refused, disconnected), true while it lives. */
bool rs_bot_update(rs_bot *bot, int64_t now_us);

/* The bot's client, for stats, requests and the custom transport. Borrowed
 * until rs_bot_destroy. */
rs_client *rs_bot_client(rs_bot *bot);

/* What the bot has seen so far. */
typedef struct rs_bot_stats {
    uint32_t laps;          /* server LAPs of the bot's own car, this race */
    uint32_t races_finished;/* RESULTS received */
    bool finished;          /* took the flag in the current race */
    bool connected;         /* welcomed and not yet disconnected */
    bool closed;            /* refused or disconnected */
    uint32_t line_builds;   /* racing lines built (AI bots) */
    uint64_t desync_errors; /* ERROR events with code DESYNC */
} rs_bot_stats;

void rs_bot_get_stats(const rs_bot *bot, rs_bot_stats *out);

/* An AI bot's pace: the fraction of its racing line's planned speeds it aims
 * for, (0, 1] (rs_driver_options.pace; the default is the driver's). A slow
 * bot for tests and for a field of mixed speeds. Out-of-range values are
 * ignored. */
void rs_bot_set_pace(rs_bot *bot, double pace);

/* Says BYE and closes the connection (rs_client_disconnect). */
void rs_bot_disconnect(rs_bot *bot, int64_t now_us);

/* Accepts NULL. Destroys the client too. */
void rs_bot_destroy(rs_bot *bot);

#ifdef __cplusplus
}
#endif

#endif
