#!/bin/sh
# The C# binding (bindings/csharp) end to end: Racesim.cs and RaceClient.cs compiled with
# Mono's mcs (C# 7) into a temporary folder, a real raceserver on a free loopback port (the
# oval, one lap, one player, its own database and key in the temporary folder), and
# RaceClient.exe run with mono against it, loading the built libracesim_client through
# LD_LIBRARY_PATH. Passes when the client exits 0 after the results, having driven its lap
# ("lap 1: ... s"), shown a HUD, finished and printed the results. About 65 s (the lap
# takes about 60). Before the race, the mirrors: every constant of Racesim.cs equals the C
# value (a C program compiled against the public headers prints them by their C names) and
# every struct mirror has the C struct's size and field offsets. Then a race weekend (two
# clients: the weekend, a car picked by hash, the session, chat, a command, standings; ~10 s).
#
# usage: sh tests/test_csharp_binding.sh BINDING_DIR LIBDIR RACESERVER INCLUDE_DIR...
#   BINDING_DIR  bindings/csharp (Racesim.cs, RaceClient.cs)
#   LIBDIR       the folder of libracesim_client.so
#   INCLUDE_DIR  the public headers' roots (racesim/client_flat.h and what it includes)
#   CC                 environment: the C compiler (default cc)
#   RS_CSHARP_SECONDS  environment: the client's time limit (default 75)
# Exit status 0 ok, 1 failed, 77 skipped (no mcs or mono: apt-get install mono-mcs mono-runtime).
set -u
# shellcheck source=support/raceserver.sh
. "$(dirname "$0")/support/raceserver.sh"
if [ $# -lt 4 ]; then
    echo "usage: sh $0 BINDING_DIR LIBDIR RACESERVER INCLUDE_DIR..." >&2
    exit 2
fi
# Absolute: the server and the client run from a folder of their own.
src=$(cd "$1" && pwd) && libdir=$(cd "$2" && pwd) &&
    raceserver=$(cd "$(dirname "$3")" && pwd)/$(basename "$3") || exit 2
shift 3
CC=${CC:-cc}
seconds=${RS_CSHARP_SECONDS:-75}

for tool in mcs mono; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "test_csharp_binding: SKIPPED: '$tool' not found (Debian: apt-get install mono-mcs mono-runtime, or scripts/deps.sh)"
        exit 77
    fi
done

rs_test_workdir
fail() {
    echo "test_csharp_binding: FAIL: $*"
    for f in mcs.log client.log server.log; do
        [ -s "$work/$f" ] && { echo "--- $f"; tail -n 40 "$work/$f"; }
    done
    exit 1
}

echo "test_csharp_binding: $(mcs --version), $(mono --version | head -n 1)"
mcs -langversion:7 -warn:4 -out:"$work/RaceClient.exe" "$src/Racesim.cs" "$src/RaceClient.cs" \
    >"$work/mcs.log" 2>&1 || fail "mcs could not compile $src/Racesim.cs and RaceClient.cs"
[ -f "$libdir/libracesim_client.so" ] || fail "no libracesim_client.so in $libdir"

# ---------------------------------------------------------------- mirrors
# The C side: constants by their C names, then each struct's size and field offsets in
# declaration order. Every constant Racesim.cs declares must be listed here (the lists are
# compared whole), so a constant added there without its C value fails.
cat >"$work/mirrors.c" <<'EOF'
#include <stddef.h>
#include <stdio.h>
#include "racesim/client_flat.h"
#define K(cs, c) printf("%s %lld\n", cs, (long long)(c));
#define S(cs, t) printf("%s %zu:", cs, sizeof(t));
#define F(t, f) printf(" %zu", offsetof(t, f));
#define E printf("\n");
int main(void)
{
    K("CarFlags.Bot", RS_CAR_BOT) K("CarFlags.Connected", RS_CAR_CONNECTED)
    K("ClientError.Behind", RS_CLIENT_ERROR_BEHIND) K("ClientError.Desync", RS_CLIENT_ERROR_DESYNC)
    K("ClientError.Params", RS_CLIENT_ERROR_PARAMS) K("ClientError.Protocol", RS_CLIENT_ERROR_PROTOCOL)
    K("ClientError.Snapshot", RS_CLIENT_ERROR_SNAPSHOT)
    K("ClientState.Closed", RS_CLIENT_CLOSED) K("ClientState.Connected", RS_CLIENT_CONNECTED)
    K("ClientState.Connecting", RS_CLIENT_CONNECTING) K("ClientState.Hello", RS_CLIENT_HELLO)
    K("EventType.AdminReply", RS_CLIENT_EV_ADMIN_REPLY) K("EventType.CarInfo", RS_CLIENT_EV_CAR_INFO)
    K("EventType.Collision", RS_CLIENT_EV_COLLISION) K("EventType.Connected", RS_CLIENT_EV_CONNECTED)
    K("EventType.Disconnected", RS_CLIENT_EV_DISCONNECTED) K("EventType.Error", RS_CLIENT_EV_ERROR)
    K("EventType.Finish", RS_CLIENT_EV_FINISH) K("EventType.Lap", RS_CLIENT_EV_LAP)
    K("EventType.LeaderboardReply", RS_CLIENT_EV_LEADERBOARD_REPLY) K("EventType.None", 0)
    K("EventType.RaceState", RS_CLIENT_EV_RACE_STATE) K("EventType.Refused", RS_CLIENT_EV_REFUSED)
    K("EventType.Results", RS_CLIENT_EV_RESULTS) K("EventType.Sector", RS_CLIENT_EV_SECTOR)
    K("EventType.TokenReply", RS_CLIENT_EV_TOKEN_REPLY) K("EventType.TuneReply", RS_CLIENT_EV_TUNE_REPLY)
    K("EventType.WorldReady", RS_CLIENT_EV_WORLD_READY)
    K("EventType.Weekend", RS_CLIENT_EV_WEEKEND) K("EventType.Penalty", RS_CLIENT_EV_PENALTY)
    K("EventType.Chat", RS_CLIENT_EV_CHAT) K("EventType.CommandReply", RS_CLIENT_EV_COMMAND_REPLY)
    K("EventType.Vote", RS_CLIENT_EV_VOTE) K("EventType.Standings", RS_CLIENT_EV_STANDINGS)
    K("SessionType.Practice", RS_SESSION_PRACTICE) K("SessionType.Qualifying", RS_SESSION_QUALIFYING)
    K("SessionType.Warmup", RS_SESSION_WARMUP) K("SessionType.Race", RS_SESSION_RACE)
    K("GridSource.JoinOrder", RS_GRID_JOIN_ORDER) K("GridSource.Qualifying", RS_GRID_QUALIFYING)
    K("GridSource.PreviousRace", RS_GRID_PREVIOUS_RACE)
    K("ResultStatus.Classified", RS_CLASSIFIED) K("ResultStatus.NotClassified", RS_NOT_CLASSIFIED)
    K("ResultStatus.Disqualified", RS_DISQUALIFIED)
    K("PenaltyKind.Time", RS_PENALTY_TIME) K("PenaltyKind.Dsq", RS_PENALTY_DSQ)
    K("PenaltyKind.Warning", RS_PENALTY_WARNING)
    K("Offence.TrackLimits", RS_OFFENCE_TRACK_LIMITS) K("Offence.Contact", RS_OFFENCE_CONTACT)
    K("Offence.JumpStart", RS_OFFENCE_JUMP_START) K("Offence.Admin", RS_OFFENCE_ADMIN)
    K("ChatKind.Room", RS_CHAT_ROOM) K("ChatKind.Private", RS_CHAT_PRIVATE)
    K("ChatKind.Announce", RS_CHAT_ANNOUNCE) K("ChatKind.System", RS_CHAT_SYSTEM)
    K("Command.Mute", RS_CMD_MUTE) K("Command.Unmute", RS_CMD_UNMUTE)
    K("Command.VoteKick", RS_CMD_VOTE_KICK) K("Command.VoteRestart", RS_CMD_VOTE_RESTART)
    K("Command.VoteSkip", RS_CMD_VOTE_SKIP) K("Command.VoteTrack", RS_CMD_VOTE_TRACK)
    K("Command.VoteYes", RS_CMD_VOTE_YES) K("Command.VoteNo", RS_CMD_VOTE_NO)
    K("Command.SelectCar", RS_CMD_SELECT_CAR)
    K("VoteKind.Kick", RS_VOTE_KICK) K("VoteKind.Restart", RS_VOTE_RESTART)
    K("VoteKind.Skip", RS_VOTE_SKIP) K("VoteKind.Track", RS_VOTE_TRACK)
    K("VoteState.Open", RS_VOTE_OPEN) K("VoteState.Passed", RS_VOTE_PASSED)
    K("VoteState.Failed", RS_VOTE_FAILED)
    K("Gear.Drive", 1) K("Gear.Keep", RS_GEAR_KEEP) K("Gear.Neutral", 0) K("Gear.Reverse", -1)
    K("LapFlags.PersonalBest", RS_LAP_PERSONAL_BEST) K("LapFlags.Recorded", RS_LAP_RECORDED)
    K("LapFlags.TrackRecord", RS_LAP_TRACK_RECORD)
    K("Library.FlatVersion", RS_FLAT_VERSION)
    K("Phase.Countdown", RS_PHASE_COUNTDOWN) K("Phase.Lobby", RS_PHASE_LOBBY)
    K("Phase.Race", RS_PHASE_RACE) K("Phase.Results", RS_PHASE_RESULTS)
    K("RaceStatus.Finished", RS_RACE_FINISHED) K("RaceStatus.Grid", RS_RACE_GRID)
    K("RaceStatus.Racing", RS_RACE_RACING)
    K("Reason.Auth", RS_REASON_AUTH) K("Reason.BadName", RS_REASON_BAD_NAME)
    K("Reason.Banned", RS_REASON_BANNED) K("Reason.Full", RS_REASON_FULL)
    K("Reason.Kicked", RS_REASON_KICKED) K("Reason.Malformed", RS_REASON_MALFORMED)
    K("Reason.NameTaken", RS_REASON_NAME_TAKEN) K("Reason.NoRoom", RS_REASON_NO_ROOM)
    K("Reason.None", RS_REASON_NONE) K("Reason.Other", RS_REASON_OTHER)
    K("Reason.Params", RS_REASON_PARAMS) K("Reason.Password", RS_REASON_PASSWORD)
    K("Reason.Physics", RS_REASON_PHYSICS) K("Reason.Replaced", RS_REASON_REPLACED)
    K("Reason.ServerKey", RS_REASON_SERVER_KEY) K("Reason.Shutdown", RS_REASON_SHUTDOWN)
    K("Reason.Timeout", RS_REASON_TIMEOUT) K("Reason.Version", RS_REASON_VERSION)
    K("Result.Busy", RS_RESULT_BUSY) K("Result.Denied", RS_RESULT_DENIED)
    K("Result.Error", RS_RESULT_ERROR) K("Result.Invalid", RS_RESULT_INVALID)
    K("Result.NotFound", RS_RESULT_NOT_FOUND) K("Result.Ok", RS_RESULT_OK)
    K("Status.ErrArg", RS_CLIENT_ERR_ARG) K("Status.ErrNet", RS_CLIENT_ERR_NET)
    K("Status.ErrNoMem", RS_CLIENT_ERR_NOMEM) K("Status.ErrState", RS_CLIENT_ERR_STATE)
    K("Status.Ok", RS_CLIENT_OK)
    K("Surface.Asphalt", RS_SURFACE_ASPHALT) K("Surface.Grass", RS_SURFACE_GRASS)
    K("Surface.Gravel", RS_SURFACE_GRAVEL) K("Surface.Kerb", RS_SURFACE_KERB)
#define T rs_flat_event
    S("RacesimEvent", T) F(T, type) F(T, car) F(T, lap) F(T, position) F(T, code) F(T, flags)
    F(T, valid) F(T, count) F(T, request_id) F(T, race_number) F(T, time_us) F(T, tick)
    F(T, player_id) F(T, total) F(T, value) F(T, text) E
#undef T
#define T rs_flat_result
    S("RacesimResult", T) F(T, car) F(T, position) F(T, laps) F(T, finished) F(T, finish_us)
    F(T, best_lap_us) F(T, class_position) F(T, status) F(T, penalty_ms) F(T, laps_led) E
#undef T
#define T rs_flat_board_row
    S("RacesimBoardRow", T) F(T, rank) F(T, reserved) F(T, time_us) F(T, recorded_at)
    F(T, tune_hash) F(T, name) E
#undef T
#define T rs_flat_pose
    S("RacesimPose", T) F(T, x_m) F(T, y_m) F(T, z_m) F(T, yaw_rad) F(T, pitch_rad)
    F(T, roll_rad) F(T, speed_m_s) F(T, quat[0]) F(T, quat[1]) F(T, quat[2]) F(T, quat[3]) E
#undef T
#define T struct rs_flat_car
    S("RacesimCar", T) F(T, car) F(T, gear) F(T, lap) F(T, laps) F(T, position) F(T, status)
    F(T, speed_m_s) F(T, engine_rpm) F(T, lap_time_us) F(T, last_lap_us) F(T, best_lap_us)
    F(T, race_time_us) E
#undef T
#define T rs_flat_track_point
    S("RacesimTrackPoint", T) F(T, s_m) F(T, x_m) F(T, y_m) F(T, heading_rad)
    F(T, curvature_1_m) F(T, offset_m) F(T, width_left_m) F(T, width_right_m)
    F(T, inside_limits) F(T, surface) E
#undef T
#define T rs_standing
    S("RacesimStanding", T) F(T, car) F(T, status) F(T, lap_valid) F(T, position)
    F(T, laps_completed) F(T, laps_behind) F(T, gap_us) F(T, interval_laps) F(T, reserved)
    F(T, interval_us) F(T, last_lap_us) F(T, best_lap_us) F(T, finish_us) E
#undef T
#define T rs_flat_stats
    S("RacesimStats", T) F(T, rtt_ms) F(T, silent_ms) F(T, jitter_ms) F(T, loss)
    F(T, input_lead_ms) F(T, target_lead_ms) F(T, clock_rate) F(T, rollbacks_per_s)
    F(T, local_error_m_last) F(T, local_error_m_max) F(T, local_error_m_mean) F(T, late_inputs)
    F(T, rollbacks) F(T, depth_p50) F(T, depth_p99) F(T, depth_max) F(T, desyncs)
    F(T, hashes_checked) F(T, snapshots) F(T, confirmed_tick) F(T, present_tick) F(T, frames)
    F(T, frames_unresolvable) F(T, inputs_sent) F(T, malformed) F(T, events_dropped)
    F(T, bytes_in) F(T, bytes_out) F(T, packets_in) F(T, packets_out) F(T, wire_bytes_in)
    F(T, wire_bytes_out) F(T, wire_packets_in) F(T, wire_packets_out) F(T, transport_errors)
    F(T, sealed_rejected) E
#undef T
#define T rs_flat_weekend
    S("RacesimWeekend", T) F(T, weekend) F(T, session_count) F(T, class_count) F(T, car_count)
    F(T, championship) E
#undef T
#define T rs_flat_session_def
    S("RacesimSessionDef", T) F(T, index) F(T, type) F(T, laps) F(T, time_limit_s)
    F(T, grid_source) F(T, grid_reverse) E
#undef T
#define T rs_flat_car_class
    S("RacesimCarClass", T) F(T, index) F(T, reserved) F(T, name) E
#undef T
#define T rs_flat_offered_car
    S("RacesimOfferedCar", T) F(T, base_hash) F(T, index) F(T, class_index) F(T, name)
    F(T, class_name) E
#undef T
#define T rs_flat_session
    S("RacesimSession", T) F(T, index) F(T, type) F(T, laps) F(T, time_limit_ms) F(T, chequered)
    F(T, phase) F(T, time_left_ms) E
#undef T
#define T rs_flat_car_info
    S("RacesimCarInfo", T) F(T, car) F(T, flags) F(T, class_index) F(T, number) F(T, ballast_kg)
    F(T, restrictor_pct) F(T, player_id) F(T, params_hash) F(T, base_hash) F(T, tune_hash)
    F(T, name) F(T, class_name) F(T, car_name) E
#undef T
#define T rs_flat_penalty
    S("RacesimPenalty", T) F(T, id) F(T, car) F(T, kind) F(T, offence) F(T, seconds) F(T, removed)
    F(T, tick) F(T, text) E
#undef T
#define T rs_flat_chat
    S("RacesimChat", T) F(T, kind) F(T, is_private) F(T, announcement) F(T, reserved)
    F(T, player_id) F(T, from) F(T, text) E
#undef T
#define T rs_flat_vote
    S("RacesimVote", T) F(T, id) F(T, kind) F(T, state) F(T, yes) F(T, no) F(T, eligible)
    F(T, needed) F(T, ends_in_ms) F(T, subject) F(T, by) E
#undef T
#define T rs_flat_championship_row
    S("RacesimChampionshipRow", T) F(T, position) F(T, points) F(T, events) F(T, wins) F(T, name)
    F(T, class_name) E
#undef T
    return 0;
}
EOF
# The C# side, by reflection over Racesim.cs: every public constant and enum value of the
# constant classes, then every struct mirror's Marshal.SizeOf and field offsets.
cat >"$work/Mirrors.cs" <<'EOF'
using System;
using System.Collections.Generic;
using System.Reflection;
using System.Runtime.InteropServices;
static class Mirrors
{
    static int Main()
    {
        var lines = new List<string>();
        foreach (Type t in typeof(Racesim.Library).Assembly.GetTypes())
        {
            if (t.Namespace != "Racesim" || !t.IsPublic)
                continue;
            if (t.IsEnum)
                foreach (string n in Enum.GetNames(t))
                    lines.Add(t.Name + "." + n + " " + Convert.ToInt64(Enum.Parse(t, n)));
            else
                foreach (FieldInfo f in t.GetFields(BindingFlags.Public | BindingFlags.Static))
                    if (f.IsLiteral && f.FieldType == typeof(int))
                        lines.Add(t.Name + "." + f.Name + " " + (int)f.GetRawConstantValue());
        }
        lines.Sort(StringComparer.Ordinal);
        foreach (string l in lines)
            Console.WriteLine(l);
        foreach (Type t in new[] { typeof(Racesim.RacesimEvent), typeof(Racesim.RacesimResult),
                                   typeof(Racesim.RacesimBoardRow), typeof(Racesim.RacesimPose),
                                   typeof(Racesim.RacesimCar), typeof(Racesim.RacesimTrackPoint),
                                   typeof(Racesim.RacesimStanding), typeof(Racesim.RacesimStats),
                                   typeof(Racesim.RacesimWeekend), typeof(Racesim.RacesimSessionDef),
                                   typeof(Racesim.RacesimCarClass), typeof(Racesim.RacesimOfferedCar),
                                   typeof(Racesim.RacesimSession), typeof(Racesim.RacesimCarInfo),
                                   typeof(Racesim.RacesimPenalty), typeof(Racesim.RacesimChat),
                                   typeof(Racesim.RacesimVote), typeof(Racesim.RacesimChampionshipRow) })
        {
            Console.Write(t.Name + " " + Marshal.SizeOf(t) + ":");
            foreach (FieldInfo f in t.GetFields(BindingFlags.Public | BindingFlags.Instance))
                Console.Write(" " + Marshal.OffsetOf(t, f.Name));
            Console.WriteLine();
        }
        Racesim.Library.Check(); // the library's rs_flat_sizeof agrees too
        return 0;
    }
}
EOF
incs=
for d in "$@"; do incs="$incs -I$d"; done
# shellcheck disable=SC2086 # a list of -I options
"$CC" -std=c11 $incs -o "$work/mirrors" "$work/mirrors.c" >"$work/mcs.log" 2>&1 ||
    fail "the C side of the mirror check does not compile"
"$work/mirrors" >"$work/mirrors.c.txt" || fail "the C side of the mirror check failed"
mcs -langversion:7 -out:"$work/Mirrors.exe" "$src/Racesim.cs" "$work/Mirrors.cs" >"$work/mcs.log" 2>&1 ||
    fail "mcs could not compile the mirror check"
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" mono "$work/Mirrors.exe" \
    >"$work/mirrors.cs.txt" 2>"$work/client.log" || fail "the C# side of the mirror check failed"
# Constants sorted by name (C locale), then the structs in order.
for side in c cs; do
    { grep -v ':' "$work/mirrors.$side.txt" | LC_ALL=C sort; grep ':' "$work/mirrors.$side.txt"; } \
        >"$work/mirrors.$side.sorted"
done
if ! diff -u "$work/mirrors.c.sorted" "$work/mirrors.cs.sorted" >"$work/mirrors.diff"; then
    cat "$work/mirrors.diff"
    fail "Racesim.cs differs from the C headers (- C, + C#)"
fi
echo "test_csharp_binding: mirrors: $(grep -vc ':' "$work/mirrors.c.txt") constants and" \
     "$(grep -c ':' "$work/mirrors.c.txt") structs (sizes, offsets) equal the C headers'"

# ---------------------------------------------------------- a race weekend
# A room with a weekend (a 10-minute practice, then a race), two offered cars in two classes
# and a championship, on a raceserver of its own; two clients of Racesim.cs: "csa" on the
# room's car reads the weekend, "csb" picks the second offered car by its hash. csb reads
# the session and chats to the room, csa answers privately, each must hear the other's line
# from the right sender; csa selects a car by command, csb asks for the standings.
mkdir "$work/weekend"
cat >"$work/weekend/config.json" <<'EOF'
{"championships": [{"name": "Sharp Cup", "rooms": ["weekend"]}],
 "rooms": [{"name": "weekend", "track": "oval", "start_players": 1, "lobby_s": 1,
            "countdown_s": 1,
            "weekend": [{"session": "practice", "minutes": 10}, {"session": "race", "laps": 1}],
            "cars": [{"car": "c5", "class": "GT"}, {"car": "formula", "class": "Formula"}]}]}
EOF
cat >"$work/Weekend.cs" <<'EOF'
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;
using Racesim;

static class WeekendCheck
{
    sealed class Seen
    {
        public string Other;
        public bool WeekendEvent;
        public RacesimChat Heard;          // the first line from Other
        public bool HeardOther;
        public RacesimEvent HeardEvent;
        public uint CommandId, StandingsId;
        public RacesimEvent? CommandReply, StandingsReply;
        public int StandingsRows = -1;
    }

    static void Pump(RacesimClient c, Seen s)
    {
        c.Update();
        foreach (var ev in c.Events())
        {
            switch (ev.Type)
            {
            case EventType.Refused:
            case EventType.Disconnected:
                throw new Exception("connection ended: " + ev);
            case EventType.Weekend:
                s.WeekendEvent = true;
                break;
            case EventType.Chat:
                RacesimChat chat;
                Check(c.GetChat(out chat), "GetChat after a Chat event");
                if (chat.From == s.Other && !s.HeardOther)
                {
                    s.HeardOther = true;
                    s.Heard = chat;
                    s.HeardEvent = ev;
                }
                break;
            case EventType.CommandReply:
                if (ev.RequestId == s.CommandId)
                    s.CommandReply = ev;
                break;
            case EventType.Standings:
                if (ev.RequestId == s.StandingsId)
                {
                    s.StandingsReply = ev;
                    s.StandingsRows = c.GetChampionshipRows().Length;
                }
                break;
            }
        }
    }

    static void Until(Func<bool> done, double seconds, params KeyValuePair<RacesimClient, Seen>[] clients)
    {
        var clock = Stopwatch.StartNew();
        while (!done())
        {
            if (clock.Elapsed.TotalSeconds > seconds)
                throw new Exception("timed out");
            foreach (var kv in clients)
                Pump(kv.Key, kv.Value);
            Thread.Sleep(2);
        }
    }

    static void Check(bool ok, string what)
    {
        if (!ok)
            throw new Exception("check failed: " + what);
    }

    static int Main(string[] args)
    {
        int port = int.Parse(args[0]);
        var a = RacesimClient.Connect("127.0.0.1", port, "csa", null,
                                      new Dictionary<string, object> { { "room", "weekend" } });
        var sa = new Seen { Other = "csb" };
        var pa = new KeyValuePair<RacesimClient, Seen>(a, sa);
        Until(() => sa.WeekendEvent, 15, pa);
        Weekend wk = a.GetWeekend();
        Console.WriteLine("weekend {0}: {1} sessions, classes {2}, cars {3} / {4}, championship {5}",
                          wk.Number, wk.Sessions.Length, string.Join(",", wk.Classes), wk.Cars[0].Name,
                          wk.Cars[1].Name, wk.Championship);
        Check(wk.Championship == "Sharp Cup", "championship");
        Check(wk.Sessions.Length == 2 && wk.Sessions[0].Type == SessionType.Practice &&
              wk.Sessions[0].TimeLimitS == 600 && wk.Sessions[1].Type == SessionType.Race &&
              wk.Sessions[1].Laps == 1, "sessions");
        Check(wk.Classes.Length == 2 && wk.Classes[1] == "Formula", "classes");
        Check(wk.Cars.Length == 2 && wk.Cars[1].ClassName == "Formula" && wk.Cars[1].ClassIndex == 1 &&
              wk.Cars[0].BaseHash != wk.Cars[1].BaseHash, "offered cars");
        ulong second = wk.Cars[1].BaseHash;

        var b = RacesimClient.Connect("127.0.0.1", port, "csb", null,
                                      new Dictionary<string, object> { { "room", "weekend" }, { "car_hash", second } });
        var sb = new Seen { Other = "csa" };
        var pb = new KeyValuePair<RacesimClient, Seen>(b, sb);
        RacesimCarInfo mine = default(RacesimCarInfo), seenByA = default(RacesimCarInfo);
        Until(() => a.Car != 0 && b.Car != 0 && b.GetCarInfo(b.Car, out mine) && a.GetCarInfo(b.Car, out seenByA),
              20, pa, pb);
        Console.WriteLine("csb drives car {0}: {1} ({2}), {3:x16}", mine.Car, mine.CarName, mine.ClassName,
                          mine.BaseHash);
        Check(mine.BaseHash == second && seenByA.BaseHash == second, "the second car, by hash");
        Check(mine.ClassName == "Formula" && mine.Name == "csb" && mine.CarName == wk.Cars[1].Name, "its details");

        RacesimSession ses;
        Check(b.GetSession(out ses), "GetSession");
        Console.WriteLine("session {0}: type {1}, {2} ms of {3} left, chequered {4}", ses.Index, ses.Type,
                          ses.TimeLeftMs, ses.TimeLimitMs, ses.Chequered);
        Check(ses.Type == SessionType.Practice && ses.TimeLimitMs == 600000 && ses.TimeLeftMs > 0 &&
              ses.TimeLeftMs <= 600000 && ses.Chequered == 0, "the practice's time");

        string line = "hello from C#, \u00e9t\u00e9 \u2713";
        b.Chat(line);
        a.Chat("only for csb", "csb");
        try
        {
            a.Chat("two\nlines");
            throw new Exception("a line with a newline was sent");
        }
        catch (ArgumentException)
        {
        }
        Until(() => sa.HeardOther && sb.HeardOther, 10, pa, pb);
        Console.WriteLine("csa heard {0}: \"{1}\" (kind {2}); csb heard {3}: \"{4}\" (private {5})",
                          sa.Heard.From, sa.Heard.Text, sa.Heard.Kind, sb.Heard.From, sb.Heard.Text,
                          sb.Heard.IsPrivate);
        Check(sa.Heard.Text == line && sa.HeardEvent.Text == line && sa.Heard.Kind == ChatKind.Room &&
              sa.Heard.IsPrivate == 0, "csb's line to the room");
        Check(sb.Heard.Text == "only for csb" && sb.Heard.Kind == ChatKind.Private && sb.Heard.IsPrivate == 1,
              "csa's private line");

        sa.CommandId = a.SelectCar(wk.Cars[0].BaseHash);
        sb.StandingsId = b.RequestStandings();
        Until(() => sa.CommandReply.HasValue && sb.StandingsReply.HasValue, 10, pa, pb);
        RacesimEvent cr = sa.CommandReply.Value, st = sb.StandingsReply.Value;
        Console.WriteLine("select car: {0} {1}; standings: {2} {3}, {4} rows of {5}", cr.Code, cr.Text, st.Code,
                          st.Text, sb.StandingsRows, st.Total);
        Check(cr.Code == Result.Ok, "SELECT_CAR by hash");
        // A fresh database: the room's championship, nobody scored yet.
        Check(st.Code == Result.Ok && st.Text == "Sharp Cup" && st.Count == 0 && sb.StandingsRows == 0,
              "the standings reply");
        a.Dispose();
        b.Dispose();
        Console.WriteLine("weekend ok");
        return 0;
    }
}
EOF
mcs -langversion:7 -warn:4 -out:"$work/Weekend.exe" "$src/Racesim.cs" "$work/Weekend.cs" >"$work/mcs.log" 2>&1 ||
    fail "mcs could not compile the weekend check"
cd "$work/weekend" || fail "cd $work/weekend"
start_raceserver server.log "$raceserver" --config config.json --stats-interval 0 \
    --db "$work/weekend/race.db" --key-file "$work/weekend/server.key" ||
    fail "raceserver (weekend) did not start"
status=0
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    mono "$work/Weekend.exe" "$port" >"$work/client.log" 2>&1 || status=$?
echo "test_csharp_binding: Weekend.exe against port $port, exit $status:"
sed 's/^/  /' "$work/client.log"
cp server.log "$work/server.log"
[ "$status" -eq 0 ] && grep -q '^weekend ok$' "$work/client.log" || fail "the race weekend through Racesim.cs"
kill -TERM "$server_pid"
wait "$server_pid"
status=$?
server_pid=
[ "$status" -eq 0 ] || fail "raceserver (weekend) exited $status on SIGTERM"

cd "$work" || fail "cd $work"
# shellcheck disable=SC2086 # the race's options are words
start_raceserver server.log "$raceserver" $RS_ONE_LAP_RACE --db "$work/race.db" \
    --key-file "$work/server.key" || fail "raceserver did not start"

start=$(date +%s)
status=0
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    mono "$work/RaceClient.exe" 127.0.0.1 "$port" "$seconds" >client.log 2>&1 || status=$?
echo "test_csharp_binding: RaceClient.exe ran $(( $(date +%s) - start )) s against port $port, exit $status:"
sed 's/^/  /' client.log

[ "$status" -eq 0 ] || fail "RaceClient.exe exited $status"
grep -Eq '^lap 1: [0-9]+\.[0-9]{3} s$' client.log || fail "no valid 'lap 1: ... s' line"
grep -Eq '^hud: lap 1/1, P1 of 1, [1-9][0-9]*\.[0-9] m/s, gear [1-9]' client.log ||
    fail "no HUD line of a car on the move (GetCar, GetStandings)"
grep -q '^FINISH: position 1 after 1 laps' client.log || fail "no FINISH"
grep -q '^RESULTS: race [0-9]*, 1 cars' client.log || fail "no RESULTS"
grep -Eq '^  1\. car 1: 1 laps, finished at [0-9.]+ s, best lap [0-9.]+ s$' client.log ||
    fail "no results row for the finisher"
grep -q 'desyncs 0,' client.log || fail "the client desynchronised"
echo "ok"
