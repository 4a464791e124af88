/*
 * Sample messages for the protocol tests and the fuzz seed generator: one
 * filled-in example of every message type, with every optional part
 * present (strings with multi-byte UTF-8, full counts, hashes), so a
 * round trip exercises every field.
 */
#ifndef RS_TEST_PROTOCOL_SUPPORT_H
#define RS_TEST_PROTOCOL_SUPPORT_H

#include <string.h>

#include "racesim/protocol.h"

/* Chunk payload the samples point into. */
static const uint8_t proto_sample_blob[RS_PROTO_CHUNK_DATA + 300] = {1, 2, 3, 4, 5, 6, 7, 8};

static inline void proto_sample_input(rs_input *in, int i)
{
    *in = rs_proto_input_neutral();
    in->steer = (int16_t)(-12000 + 997 * i);
    in->throttle = (uint8_t)(200 - 3 * i);
    in->brake = (uint8_t)(i % 3 ? 0 : 40);
    in->gear = (int8_t)(i % 4 == 0 ? 3 : RS_GEAR_KEEP);
    in->buttons = (uint8_t)(i % 5 == 0 ? RS_BUTTON_SHIFT_UP : 0);
    in->handbrake = (uint8_t)(i == 7 ? 255 : 0);
    in->clutch = (uint8_t)(i == 6 ? 128 : 0);
}

/* Chunk `index` of the blob sent as transfer `transfer_id`. */
static inline void proto_sample_chunk(uint32_t transfer_id, uint32_t index, rs_proto_chunk *out)
{
    rs_proto_chunk_make(proto_sample_blob, sizeof proto_sample_blob, transfer_id,
                        rs_proto_hash64(proto_sample_blob, sizeof proto_sample_blob), index, out);
}

/* Fills *m (zeroed first) with the sample of message type. */
static inline void proto_sample(uint8_t type, rs_msg *m)
{
    memset(m, 0, sizeof *m);
    m->type = type;
    switch (type) {
    case RS_MSG_HELLO:
        m->u.hello.protocol_version = RS_PROTO_VERSION;
        m->u.hello.physics_version = RS_PHYSICS_VERSION;
        m->u.hello.flags = RS_HELLO_SPECTATOR;
        strcpy(m->u.hello.name, "Kimi R\xc3\xa4ikk\xc3\xb6nen");
        memset(m->u.hello.token, 'a', RS_PROTO_TOKEN_LEN);
        strcpy(m->u.hello.room, "main");
        strcpy(m->u.hello.password, "pit lane");
        m->u.hello.car_hash = 0xfedcba9876543210u;
        break;
    case RS_MSG_WELCOME:
        m->u.welcome = (rs_msg_welcome){.room_id = 3,
                                        .car = 5,
                                        .player_id = 1234567,
                                        .tick_hz = 60,
                                        .substeps = 4,
                                        .hash_interval = 30,
                                        .physics_version = RS_PHYSICS_VERSION,
                                        .tick = 987654,
                                        .track_hash = UINT64_C(0x0123456789abcdef),
                                        .car_count = RS_PROTO_MAX_CARS};
        memset(m->u.welcome.token, 'F', RS_PROTO_TOKEN_LEN);
        for (uint32_t i = 0; i < RS_PROTO_MAX_CARS; i++)
            m->u.welcome.car_hashes[i] = UINT64_C(0xfedcba9876543210) ^ i;
        break;
    case RS_MSG_REFUSE:
    case RS_MSG_BYE:
        m->u.refuse = (rs_msg_refuse){
            .reason = RS_REASON_PASSWORD,
            .text = "wrong room password for \xe2\x80\x9cmain\xe2\x80\x9d"};
        break;
    case RS_MSG_INPUT:
        m->u.input.newest_tick = 5000;
        m->u.input.frame_ack = 4991;
        m->u.input.count = RS_PROTO_INPUT_MAX;
        for (int i = 0; i < (int)RS_PROTO_INPUT_MAX; i++)
            proto_sample_input(&m->u.input.inputs[i], i);
        break;
    case RS_MSG_FRAME: {
        rs_msg_frame *f = &m->u.frame;
        f->first_tick = 4000;
        f->baseline_back = 2;
        f->tick_count = 4;
        f->car_count = 16;
        rs_input base[16], in[4 * 16];
        for (int c = 0; c < 16; c++)
            proto_sample_input(&base[c], c % 8);
        for (int t = 0; t < 4; t++)
            for (int c = 0; c < 16; c++)
                proto_sample_input(&in[t * 16 + c], (c + t) % 8);
        rs_proto_frame_set_inputs(f, base, in);
        f->hash_count = 2;
        f->hashes[0].index = 0;
        f->hashes[0].hash = UINT64_C(0x1111222233334444);
        f->hashes[1].index = 3;
        f->hashes[1].hash = UINT64_C(0x5555666677778888);
        f->input_lead_ms = -12;
        f->late_inputs = 7;
        f->input_ack = 4009;
        break;
    }
    case RS_MSG_PING:
        m->u.ping = (rs_msg_ping){.id = 77, .time_us = UINT64_C(123456789012)};
        break;
    case RS_MSG_PONG:
        m->u.pong = (rs_msg_pong){.id = 77, .echo_time_us = UINT64_C(123456789012), .tick = 4321};
        break;
    case RS_MSG_SNAPSHOT_REQUEST:
        m->u.snapshot_request = (rs_msg_snapshot_request){.reason = RS_SNAP_DESYNC, .tick = 3600};
        break;
    case RS_MSG_SNAPSHOT:
        m->u.snapshot.tick = 3600;
        m->u.snapshot.state_hash = UINT64_C(0xdeadbeefcafef00d);
        proto_sample_chunk(9, 0, &m->u.snapshot.chunk);
        break;
    case RS_MSG_PARAMS:
        m->u.params.kind = RS_PARAMS_CAR;
        m->u.params.car = 2;
        m->u.params.id_hash = UINT64_C(0xabcdef0123456789);
        proto_sample_chunk(10, 1, &m->u.params.chunk);
        break;
    case RS_MSG_PARAMS_ACK:
        m->u.params_ack =
            (rs_msg_params_ack){.kind = RS_PARAMS_TRACK, .id_hash = UINT64_C(0x0123456789abcdef)};
        break;
    case RS_MSG_DESYNC_REPORT:
        m->u.desync_report =
            (rs_msg_desync_report){.tick = 3630, .client_hash = 1, .server_hash = 2};
        break;
    case RS_MSG_CAR_INFO:
        m->u.car_info = (rs_msg_car_info){.car = 16,
                                          .flags = RS_CAR_CONNECTED,
                                          .player_id = 42,
                                          .name = "Ayrton",
                                          .params_hash = 11,
                                          .base_hash = 12,
                                          .tune_hash = 13,
                                          .class_index = RS_PROTO_MAX_CLASSES - 1,
                                          .number = RS_PROTO_NUMBER_MAX,
                                          .ballast_kg = 250,
                                          .restrictor_pct = 12};
        break;
    case RS_MSG_RACE_STATE:
        /* A timed race whose time ran out: the chequered flag is out. */
        m->u.race_state = (rs_msg_race_state){.phase = RS_PHASE_RACE,
                                              .race_number = 4,
                                              .laps = 0,
                                              .phase_tick = 10000,
                                              .start_tick = 10300,
                                              .phase_end_tick = 0,
                                              .track_hash = UINT64_C(0x0123456789abcdef),
                                              .session_index = RS_PROTO_MAX_SESSIONS - 1,
                                              .session_type = RS_SESSION_RACE,
                                              .time_limit_ms = 45u * 60u * 1000u,
                                              .flags = RS_SESSION_CHEQUERED};
        break;
    case RS_MSG_LAP:
        m->u.lap.car = 3;
        m->u.lap.lap = 2;
        m->u.lap.tick = 9000;
        m->u.lap.time_us = 83456789;
        m->u.lap.sector_count = RS_MAX_SECTORS;
        for (int i = 0; i < RS_MAX_SECTORS; i++)
            m->u.lap.sectors_us[i] = i == 5 ? -1 : 5000000 + i;
        m->u.lap.valid = false;
        m->u.lap.invalid_reason = RS_LAP_TRACK_LIMITS;
        m->u.lap.flags = RS_LAP_RECORDED | RS_LAP_CHEQUERED;
        m->u.lap.position = 32;
        break;
    case RS_MSG_RESULTS:
        m->u.results.race_number = 4;
        m->u.results.session_index = 5;
        m->u.results.session_type = RS_SESSION_RACE;
        m->u.results.count = RS_PROTO_MAX_CARS;
        for (uint32_t i = 0; i < RS_PROTO_MAX_CARS; i++) {
            /* Two classes taking turns down the order; the last two cars
             * retired and disqualified. */
            rs_proto_result_row *r = &m->u.results.rows[i];
            r->car = (uint8_t)(RS_PROTO_MAX_CARS - i);
            r->position = (uint8_t)(i + 1);
            r->class_position = (uint8_t)(i / 2 + 1);
            r->status = i == 31 ? RS_DISQUALIFIED : i == 30 ? RS_NOT_CLASSIFIED : RS_CLASSIFIED;
            r->laps = i == 31 ? 2 : 5;
            r->finish_us = i >= 30 ? -1 : RS_PROTO_TIME_MAX_US - (int64_t)i;
            r->best_lap_us = i == 30 ? -1 : RS_PROTO_TIME_MAX_US;
            r->penalty_ms = i == 3 ? INT32_MAX : i % 5 == 0 ? 5000u : 0u;
            r->laps_led = (uint16_t)(i == 0 ? 4 : i == 1 ? 1 : 0);
        }
        break;
    case RS_MSG_LEADERBOARD_REQUEST:
        m->u.leaderboard_request = (rs_msg_leaderboard_request){.request_id = 5,
                                                                .track_hash = 1,
                                                                .base_hash = 2,
                                                                .tune_key = UINT64_MAX,
                                                                .offset = 20,
                                                                .count = RS_PROTO_LB_ROWS};
        break;
    case RS_MSG_LEADERBOARD_REPLY:
        m->u.leaderboard_reply.request_id = 5;
        m->u.leaderboard_reply.result = RS_RESULT_OK;
        m->u.leaderboard_reply.total = 1000;
        m->u.leaderboard_reply.offset = 20;
        m->u.leaderboard_reply.count = RS_PROTO_LB_ROWS;
        for (uint32_t i = 0; i < RS_PROTO_LB_ROWS; i++) {
            rs_proto_lb_row *r = &m->u.leaderboard_reply.rows[i];
            r->rank = 21 + i;
            memset(r->name, 'x', RS_PROTO_NAME_MAX);
            r->time_us = 80000000 + i;
            r->tune_hash = i;
            r->recorded_at = INT64_C(1700000000);
        }
        break;
    case RS_MSG_TUNE_SAVE:
        m->u.tune_save = (rs_msg_tune_save){
            .request_id = 6,
            .name = "wet setup",
            .json = "{\"format\":\"racesim-tune\",\"version\":1,"
                    "\"gearbox\":{\"final_drive\":3.9}}"};
        break;
    case RS_MSG_TUNE_LOAD:
    case RS_MSG_SELECT_TUNE:
        m->u.tune_load = (rs_msg_tune_name){.request_id = 7, .name = "wet setup"};
        break;
    case RS_MSG_TUNE_LIST:
        m->u.tune_list = (rs_msg_tune_list){.request_id = 8, .base_hash = 99, .offset = 40};
        break;
    case RS_MSG_TUNE_REPLY:
        m->u.tune_reply = (rs_msg_tune_reply){
            .request_id = 6,
            .op = RS_TUNE_OP_SAVE,
            .result = RS_RESULT_INVALID,
            .total = 3,
            .text = "wet setup: gearbox.final_drive: 9.1 outside 2.8..4.5"};
        break;
    case RS_MSG_ADMIN:
        m->u.admin = (rs_msg_admin){.request_id = 9,
                                    .command = RS_ADMIN_BAN,
                                    .arg = "griefer",
                                    .reason = "ramming on purpose",
                                    .duration_s = 86400};
        break;
    case RS_MSG_ADMIN_REPLY:
        m->u.admin_reply = (rs_msg_admin_reply){
            .request_id = 9, .result = RS_RESULT_DENIED, .text = "you are not an administrator"};
        break;
    case RS_MSG_TOKEN_ACK:
        m->u.token_ack = (rs_msg_token_ack){.kind = RS_TOKEN_ACK_ROTATED};
        break;
    case RS_MSG_TOKEN_ROTATE:
        m->u.token_rotate = (rs_msg_token_rotate){.request_id = 10};
        break;
    case RS_MSG_TOKEN_REPLY:
        m->u.token_reply = (rs_msg_token_reply){
            .request_id = 10,
            .result = RS_RESULT_OK,
            .token = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"};
        break;
    case RS_MSG_WEEKEND: {
        /* Every session, class and the championship: practice, qualifying
         * and a warm-up before each race, timed and lap-limited, with every
         * grid source. */
        rs_msg_weekend *w = &m->u.weekend;
        w->weekend = 300;
        w->session_count = RS_PROTO_MAX_SESSIONS;
        for (uint32_t i = 0; i < RS_PROTO_MAX_SESSIONS; i++) {
            rs_proto_session_def *d = &w->sessions[i];
            d->type = (uint8_t)(i % RS_SESSION_TYPE_COUNT);
            if (i % 3 == 0)
                d->time_limit_s = i == 0 ? RS_PROTO_SESSION_MAX_S : 600u * (i + 1u);
            else
                d->laps = (uint16_t)(i == 1 ? 1000 : i + 1);
            if (d->type == RS_SESSION_RACE) {
                d->grid_source = (uint8_t)(i / RS_SESSION_TYPE_COUNT % RS_GRID_SOURCE_COUNT);
                d->grid_reverse = (uint8_t)(i == 7 ? RS_PROTO_MAX_CARS : i == 11 ? 8 : 0);
            }
        }
        w->class_count = RS_PROTO_MAX_CLASSES;
        static const char *const classes[RS_PROTO_MAX_CLASSES] = {
            "GT3", "GT4", "LMP2", "Cup", "TCR", "Hypercar", "Cl\xc3\xa1sico", "\xe8\xbb\xbd"};
        for (uint32_t i = 0; i < RS_PROTO_MAX_CLASSES; i++)
            strcpy(w->classes[i], classes[i]);
        strcpy(w->championship, "Endurance Cup 2026");
        w->car_count = 3;
        static const char *const cars[3] = {"Chevrolet Corvette C5", "Formula (2019-era F1)",
                                            "Porsche 911 GT3 R \xe2\x80\x93 992"};
        for (uint32_t i = 0; i < 3; i++) {
            w->cars[i].base_hash = 0x0123456789abcdefu * (i + 1u);
            w->cars[i].class_index = (uint8_t)(i * 3);
            strcpy(w->cars[i].name, cars[i]);
        }
        break;
    }
    case RS_MSG_PENALTY:
        m->u.penalty = (rs_msg_penalty){.id = 12,
                                        .car = 7,
                                        .kind = RS_PENALTY_TIME,
                                        .offence = RS_OFFENCE_TRACK_LIMITS,
                                        .seconds = 5,
                                        .tick = 54321,
                                        .text = "3 track limit strikes"};
        break;
    case RS_MSG_CHAT:
        /* Spaces doubled, a dash, Chinese and an emoji: all fine in chat. */
        m->u.chat = (rs_msg_chat){.to = "Ayrton",
                                  .text = "n\xc3\xad" "ce  move \xe2\x80\x94 "
                                          "\xe4\xbd\xa0\xe5\xa5\xbd \xf0\x9f\x8f\x81"};
        break;
    case RS_MSG_CHAT_MSG:
        m->u.chat_msg = (rs_msg_chat_msg){.kind = RS_CHAT_PRIVATE,
                                          .player_id = 1234567,
                                          .from = "Kimi R\xc3\xa4ikk\xc3\xb6nen",
                                          .text = "leave me alone, I know what I'm doing"};
        break;
    case RS_MSG_COMMAND:
        m->u.command = (rs_msg_command){.request_id = 11, .command = RS_CMD_VOTE_KICK,
                                        .arg = "griefer"};
        break;
    case RS_MSG_COMMAND_REPLY:
        m->u.command_reply = (rs_msg_command_reply){
            .request_id = 11, .result = RS_RESULT_BUSY, .text = "a vote is already open"};
        break;
    case RS_MSG_VOTE_STATE:
        m->u.vote_state = (rs_msg_vote_state){.vote_id = 3,
                                              .kind = RS_VOTE_KICK,
                                              .state = RS_VOTE_OPEN,
                                              .arg = "griefer",
                                              .by = "Ayrton",
                                              .yes = 3,
                                              .no = 1,
                                              .eligible = 6,
                                              .needed = 4,
                                              .ends_in_ms = 25000};
        break;
    case RS_MSG_STANDINGS_REQUEST:
        m->u.standings_request = (rs_msg_standings_request){.request_id = 12,
                                                            .championship = "Endurance Cup 2026",
                                                            .class_name = "GT3",
                                                            .offset = 10,
                                                            .count = RS_PROTO_STANDINGS_ROWS};
        break;
    case RS_MSG_STANDINGS_REPLY: {
        rs_msg_standings_reply *r = &m->u.standings_reply;
        r->request_id = 12;
        r->result = RS_RESULT_OK;
        strcpy(r->championship, "Endurance Cup 2026");
        r->total = 45;
        r->offset = 10;
        r->count = RS_PROTO_STANDINGS_ROWS;
        for (uint32_t i = 0; i < RS_PROTO_STANDINGS_ROWS; i++) {
            rs_proto_standing_row *row = &r->rows[i];
            row->position = 11 + i - (i == 4); /* rows 3 and 4 tie */
            memset(row->name, 'a' + (int)i, RS_PROTO_NAME_MAX);
            strcpy(row->class_name, i % 2 ? "GT3" : "GT4");
            row->points = 200 - 7 * i;
            row->events = 9;
            row->wins = (uint16_t)(i < 2 ? 1 : 0);
        }
        break;
    }
    default:
        break;
    }
}

#endif
