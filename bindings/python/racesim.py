"""racesim client for Python: a thin ctypes binding of the flat C layer
(racesim/client_flat.h) in libracesim_client.so. Standard library only.

    import racesim
    with racesim.Client.connect("127.0.0.1", 27960, name="alice") as c:
        while True:                                  # every frame
            c.controls(steer, throttle, brake)
            c.update()
            for ev in c.events():                    # ev.type_name: "LAP", ...
                ...
            pose = c.pose()                          # the local car, None before a world

The library is found from $RACESIM_LIB (a path), else by the loader's
search (ctypes.util.find_library, then the soname). At import every struct
mirrored here is checked against the size the library reports
(rs_flat_sizeof): a binding and a library that disagree on a layout would
read garbage, so they refuse to work together (LayoutError).

Thread rules as the C SDK: one Client belongs to one thread at a time.
"""

import ctypes
import ctypes.util
import dataclasses
import os

__all__ = ["Client", "LayoutError", "load_library"]

# ------------------------------------------------------------ constants
# Every constant below mirrors the C constant named beside it (headers:
# racesim/client.h, racesim/client_flat.h, racesim/physics.h,
# racesim/protocol.h); C_CONSTANTS maps the C names to the values, and
# tests/test_python_binding.sh compiles those names with the C compiler
# and compares every one.
C_CONSTANTS = {}


def _c(c_name, value):
    C_CONSTANTS[c_name] = value
    return value


FLAT_VERSION = _c("RS_FLAT_VERSION", 2)

# rs_client_status
OK = _c("RS_CLIENT_OK", 0)
ERR_ARG = _c("RS_CLIENT_ERR_ARG", 1)
ERR_NOMEM = _c("RS_CLIENT_ERR_NOMEM", 2)
ERR_NET = _c("RS_CLIENT_ERR_NET", 3)
ERR_STATE = _c("RS_CLIENT_ERR_STATE", 4)

# rs_client_state
CONNECTING = _c("RS_CLIENT_CONNECTING", 0)
HELLO = _c("RS_CLIENT_HELLO", 1)
CONNECTED = _c("RS_CLIENT_CONNECTED", 2)
CLOSED = _c("RS_CLIENT_CLOSED", 3)

# rs_client_event_type: Event.type
EV_CONNECTED = _c("RS_CLIENT_EV_CONNECTED", 1)
EV_REFUSED = _c("RS_CLIENT_EV_REFUSED", 2)
EV_CAR_INFO = _c("RS_CLIENT_EV_CAR_INFO", 3)
EV_WORLD_READY = _c("RS_CLIENT_EV_WORLD_READY", 4)
EV_RACE_STATE = _c("RS_CLIENT_EV_RACE_STATE", 5)
EV_SECTOR = _c("RS_CLIENT_EV_SECTOR", 6)
EV_LAP = _c("RS_CLIENT_EV_LAP", 7)
EV_COLLISION = _c("RS_CLIENT_EV_COLLISION", 8)
EV_FINISH = _c("RS_CLIENT_EV_FINISH", 9)
EV_RESULTS = _c("RS_CLIENT_EV_RESULTS", 10)
EV_LEADERBOARD_REPLY = _c("RS_CLIENT_EV_LEADERBOARD_REPLY", 11)
EV_TUNE_REPLY = _c("RS_CLIENT_EV_TUNE_REPLY", 12)
EV_ADMIN_REPLY = _c("RS_CLIENT_EV_ADMIN_REPLY", 13)
EV_TOKEN_REPLY = _c("RS_CLIENT_EV_TOKEN_REPLY", 14)
EV_ERROR = _c("RS_CLIENT_EV_ERROR", 15)
EV_DISCONNECTED = _c("RS_CLIENT_EV_DISCONNECTED", 16)
# the race weekend (protocol version 6): Event.detail holds their contents
EV_WEEKEND = _c("RS_CLIENT_EV_WEEKEND", 17)              # detail: Weekend
EV_PENALTY = _c("RS_CLIENT_EV_PENALTY", 18)              # detail: Penalty
EV_CHAT = _c("RS_CLIENT_EV_CHAT", 19)                    # detail: ChatLine
EV_COMMAND_REPLY = _c("RS_CLIENT_EV_COMMAND_REPLY", 20)  # code: RESULT_*, text
EV_VOTE = _c("RS_CLIENT_EV_VOTE", 21)                    # detail: Vote
EV_STANDINGS = _c("RS_CLIENT_EV_STANDINGS", 22)          # detail: [ChampionshipRow]
EVENT_NAMES = {v: k[len("RS_CLIENT_EV_"):] for k, v in C_CONSTANTS.items()
               if k.startswith("RS_CLIENT_EV_")}

# rs_client_error: Event.code of EV_ERROR
ERROR_DESYNC = _c("RS_CLIENT_ERROR_DESYNC", 1)
ERROR_PARAMS = _c("RS_CLIENT_ERROR_PARAMS", 2)
ERROR_SNAPSHOT = _c("RS_CLIENT_ERROR_SNAPSHOT", 3)
ERROR_PROTOCOL = _c("RS_CLIENT_ERROR_PROTOCOL", 4)
ERROR_BEHIND = _c("RS_CLIENT_ERROR_BEHIND", 5)

# rs_proto_reason: Event.code of EV_REFUSED and EV_DISCONNECTED
REASON_NONE = _c("RS_REASON_NONE", 0)
REASON_VERSION = _c("RS_REASON_VERSION", 1)
REASON_PHYSICS = _c("RS_REASON_PHYSICS", 2)
REASON_AUTH = _c("RS_REASON_AUTH", 3)
REASON_NAME_TAKEN = _c("RS_REASON_NAME_TAKEN", 4)
REASON_NO_ROOM = _c("RS_REASON_NO_ROOM", 5)
REASON_PASSWORD = _c("RS_REASON_PASSWORD", 6)
REASON_FULL = _c("RS_REASON_FULL", 7)
REASON_BANNED = _c("RS_REASON_BANNED", 8)
REASON_KICKED = _c("RS_REASON_KICKED", 9)
REASON_SHUTDOWN = _c("RS_REASON_SHUTDOWN", 10)
REASON_TIMEOUT = _c("RS_REASON_TIMEOUT", 11)
REASON_MALFORMED = _c("RS_REASON_MALFORMED", 12)
REASON_PARAMS = _c("RS_REASON_PARAMS", 13)
REASON_OTHER = _c("RS_REASON_OTHER", 14)
REASON_SERVER_KEY = _c("RS_REASON_SERVER_KEY", 15)
REASON_BAD_NAME = _c("RS_REASON_BAD_NAME", 16)
REASON_REPLACED = _c("RS_REASON_REPLACED", 17)

# rs_proto_result: Event.code of the replies
RESULT_OK = _c("RS_RESULT_OK", 0)
RESULT_NOT_FOUND = _c("RS_RESULT_NOT_FOUND", 1)
RESULT_INVALID = _c("RS_RESULT_INVALID", 2)
RESULT_DENIED = _c("RS_RESULT_DENIED", 3)
RESULT_BUSY = _c("RS_RESULT_BUSY", 4)
RESULT_ERROR = _c("RS_RESULT_ERROR", 5)

# rs_proto_phase (RS_PHASE_*): Event.code of EV_RACE_STATE
PHASE_LOBBY = _c("RS_PHASE_LOBBY", 0)
PHASE_COUNTDOWN = _c("RS_PHASE_COUNTDOWN", 1)
PHASE_RACE = _c("RS_PHASE_RACE", 2)
PHASE_RESULTS = _c("RS_PHASE_RESULTS", 3)

# rs_race_status: Car.status, Standing.status
RACE_GRID = _c("RS_RACE_GRID", 0)
RACE_RACING = _c("RS_RACE_RACING", 1)
RACE_FINISHED = _c("RS_RACE_FINISHED", 2)

# Event.flags of EV_LAP, Event.code of EV_CAR_INFO
LAP_RECORDED = _c("RS_LAP_RECORDED", 1)
LAP_PERSONAL_BEST = _c("RS_LAP_PERSONAL_BEST", 2)
LAP_TRACK_RECORD = _c("RS_LAP_TRACK_RECORD", 4)
CAR_CONNECTED = _c("RS_CAR_CONNECTED", 1)
CAR_BOT = _c("RS_CAR_BOT", 2)

# Gears for Client.controls
GEAR_REVERSE = _c("RS_GEAR_REVERSE", -1)
GEAR_NEUTRAL = _c("RS_GEAR_NEUTRAL", 0)
GEAR_KEEP = _c("RS_GEAR_KEEP", -128)

# RS_SESSION_*: Session.type, SessionDef.type
SESSION_PRACTICE = _c("RS_SESSION_PRACTICE", 0)
SESSION_QUALIFYING = _c("RS_SESSION_QUALIFYING", 1)
SESSION_WARMUP = _c("RS_SESSION_WARMUP", 2)
SESSION_RACE = _c("RS_SESSION_RACE", 3)

# RS_GRID_*: SessionDef.grid_source
GRID_JOIN_ORDER = _c("RS_GRID_JOIN_ORDER", 0)
GRID_QUALIFYING = _c("RS_GRID_QUALIFYING", 1)
GRID_PREVIOUS_RACE = _c("RS_GRID_PREVIOUS_RACE", 2)

# Result.status
CLASSIFIED = _c("RS_CLASSIFIED", 0)
NOT_CLASSIFIED = _c("RS_NOT_CLASSIFIED", 1)
DISQUALIFIED = _c("RS_DISQUALIFIED", 2)

# RS_PENALTY_*, RS_OFFENCE_*: Penalty.kind, Penalty.offence
PENALTY_TIME = _c("RS_PENALTY_TIME", 0)
PENALTY_DSQ = _c("RS_PENALTY_DSQ", 1)
PENALTY_WARNING = _c("RS_PENALTY_WARNING", 2)
OFFENCE_TRACK_LIMITS = _c("RS_OFFENCE_TRACK_LIMITS", 0)
OFFENCE_CONTACT = _c("RS_OFFENCE_CONTACT", 1)
OFFENCE_JUMP_START = _c("RS_OFFENCE_JUMP_START", 2)
OFFENCE_ADMIN = _c("RS_OFFENCE_ADMIN", 3)

# RS_CHAT_*: ChatLine.kind
CHAT_ROOM = _c("RS_CHAT_ROOM", 0)
CHAT_PRIVATE = _c("RS_CHAT_PRIVATE", 1)
CHAT_ANNOUNCE = _c("RS_CHAT_ANNOUNCE", 2)
CHAT_SYSTEM = _c("RS_CHAT_SYSTEM", 3)

# RS_CMD_*: Client.command
CMD_MUTE = _c("RS_CMD_MUTE", 0)
CMD_UNMUTE = _c("RS_CMD_UNMUTE", 1)
CMD_VOTE_KICK = _c("RS_CMD_VOTE_KICK", 2)
CMD_VOTE_RESTART = _c("RS_CMD_VOTE_RESTART", 3)
CMD_VOTE_SKIP = _c("RS_CMD_VOTE_SKIP", 4)
CMD_VOTE_TRACK = _c("RS_CMD_VOTE_TRACK", 5)
CMD_VOTE_YES = _c("RS_CMD_VOTE_YES", 6)
CMD_VOTE_NO = _c("RS_CMD_VOTE_NO", 7)
CMD_SELECT_CAR = _c("RS_CMD_SELECT_CAR", 8)

# RS_VOTE_*: Vote.kind, Vote.state
VOTE_KICK = _c("RS_VOTE_KICK", 0)
VOTE_RESTART = _c("RS_VOTE_RESTART", 1)
VOTE_SKIP = _c("RS_VOTE_SKIP", 2)
VOTE_TRACK = _c("RS_VOTE_TRACK", 3)
VOTE_OPEN = _c("RS_VOTE_OPEN", 0)
VOTE_PASSED = _c("RS_VOTE_PASSED", 1)
VOTE_FAILED = _c("RS_VOTE_FAILED", 2)

# rs_surface: TrackPoint.surface
SURFACE_ASPHALT = _c("RS_SURFACE_ASPHALT", 0)
SURFACE_KERB = _c("RS_SURFACE_KERB", 1)
SURFACE_GRASS = _c("RS_SURFACE_GRASS", 2)
SURFACE_GRAVEL = _c("RS_SURFACE_GRAVEL", 3)

# ------------------------------------------------------------ layouts
# The structs of racesim/client_flat.h (and rs_standing),
# field for field; ctypes lays them out as the C compiler does.
_i32, _u32, _i64, _u64 = ctypes.c_int32, ctypes.c_uint32, ctypes.c_int64, ctypes.c_uint64
_f64 = ctypes.c_double


class _Event(ctypes.Structure):
    _fields_ = [("type", _i32), ("car", _i32), ("lap", _i32), ("position", _i32),
                ("code", _i32), ("flags", _i32), ("valid", _i32), ("count", _i32),
                ("request_id", _u32), ("race_number", _u32), ("time_us", _i64),
                ("tick", _i64), ("player_id", _i64), ("total", _i64), ("value", _f64),
                ("text", ctypes.c_char * 1024)]


class _Result(ctypes.Structure):
    _fields_ = [("car", _i32), ("position", _i32), ("laps", _i32), ("finished", _i32),
                ("finish_us", _i64), ("best_lap_us", _i64), ("class_position", _i32),
                ("status", _i32), ("penalty_ms", _i32), ("laps_led", _i32)]


class _BoardRow(ctypes.Structure):
    _fields_ = [("rank", _i32), ("reserved", _i32), ("time_us", _i64),
                ("recorded_at", _i64), ("tune_hash", _u64), ("name", ctypes.c_char * 64)]


class _Pose(ctypes.Structure):
    _fields_ = [("x_m", _f64), ("y_m", _f64), ("z_m", _f64), ("yaw_rad", _f64),
                ("pitch_rad", _f64), ("roll_rad", _f64), ("speed_m_s", _f64),
                ("quat", _f64 * 4)]


class _Car(ctypes.Structure):
    _fields_ = [("car", _i32), ("gear", _i32), ("lap", _i32), ("laps", _i32),
                ("position", _i32), ("status", _i32), ("speed_m_s", _f64),
                ("engine_rpm", _f64), ("lap_time_us", _i64), ("last_lap_us", _i64),
                ("best_lap_us", _i64), ("race_time_us", _i64)]


class _TrackPoint(ctypes.Structure):
    _fields_ = [("s_m", _f64), ("x_m", _f64), ("y_m", _f64), ("heading_rad", _f64),
                ("curvature_1_m", _f64), ("offset_m", _f64), ("width_left_m", _f64),
                ("width_right_m", _f64), ("inside_limits", _i32), ("surface", _i32)]


class _Standing(ctypes.Structure):
    _fields_ = [("car", ctypes.c_uint16), ("status", ctypes.c_uint8),
                ("lap_valid", ctypes.c_uint8), ("position", _u32), ("laps_completed", _u32),
                ("laps_behind", _u32), ("gap_us", _i64), ("interval_laps", _u32),
                ("reserved", _u32), ("interval_us", _i64), ("last_lap_us", _i64),
                ("best_lap_us", _i64), ("finish_us", _i64)]


class _Stats(ctypes.Structure):
    _fields_ = [(name, _f64) for name in (
        "rtt_ms", "silent_ms", "jitter_ms", "loss", "input_lead_ms", "target_lead_ms",
        "clock_rate", "rollbacks_per_s", "local_error_m_last", "local_error_m_max",
        "local_error_m_mean")] + [(name, _i64) for name in (
            "late_inputs", "rollbacks", "depth_p50", "depth_p99", "depth_max", "desyncs",
            "hashes_checked", "snapshots", "confirmed_tick", "present_tick", "frames",
            "frames_unresolvable", "inputs_sent", "malformed", "events_dropped", "bytes_in",
            "bytes_out", "packets_in", "packets_out", "wire_bytes_in", "wire_bytes_out",
            "wire_packets_in", "wire_packets_out", "transport_errors", "sealed_rejected")]


def _text(n):
    return ctypes.c_char * n


# The race weekend (flat version 2).
class _Weekend(ctypes.Structure):
    _fields_ = [("weekend", _i32), ("session_count", _i32), ("class_count", _i32),
                ("car_count", _i32), ("championship", _text(64))]


class _SessionDef(ctypes.Structure):
    _fields_ = [("index", _i32), ("type", _i32), ("laps", _i32), ("time_limit_s", _i32),
                ("grid_source", _i32), ("grid_reverse", _i32)]


class _CarClass(ctypes.Structure):
    _fields_ = [("index", _i32), ("reserved", _i32), ("name", _text(64))]


class _OfferedCar(ctypes.Structure):
    _fields_ = [("base_hash", _u64), ("index", _i32), ("class_index", _i32),
                ("name", _text(64)), ("class_name", _text(64))]


class _Session(ctypes.Structure):
    _fields_ = [("index", _i32), ("type", _i32), ("laps", _i32), ("time_limit_ms", _i32),
                ("chequered", _i32), ("phase", _i32), ("time_left_ms", _i64)]


class _CarInfo(ctypes.Structure):
    _fields_ = [("car", _i32), ("flags", _i32), ("class_index", _i32), ("number", _i32),
                ("ballast_kg", _i32), ("restrictor_pct", _i32), ("player_id", _i64),
                ("params_hash", _u64), ("base_hash", _u64), ("tune_hash", _u64),
                ("name", _text(64)), ("class_name", _text(64)), ("car_name", _text(64))]


class _Penalty(ctypes.Structure):
    _fields_ = [("id", _u32), ("car", _i32), ("kind", _i32), ("offence", _i32),
                ("seconds", _i32), ("removed", _i32), ("tick", _i64), ("text", _text(256))]


class _Chat(ctypes.Structure):
    _fields_ = [("kind", _i32), ("is_private", _i32), ("announcement", _i32),
                ("reserved", _i32), ("player_id", _i64), ("sender", _text(64)),
                ("text", _text(256))]


class _Vote(ctypes.Structure):
    _fields_ = [("id", _u32), ("kind", _i32), ("state", _i32), ("yes", _i32), ("no", _i32),
                ("eligible", _i32), ("needed", _i32), ("ends_in_ms", _i32),
                ("subject", _text(128)), ("by", _text(64))]


class _ChampionshipRow(ctypes.Structure):
    _fields_ = [("position", _i32), ("points", _i32), ("events", _i32), ("wins", _i32),
                ("name", _text(64)), ("class_name", _text(64))]


# The C name of each mirror, as rs_flat_sizeof knows it.
_MIRRORS = {"rs_flat_event": _Event, "rs_flat_result": _Result,
            "rs_flat_board_row": _BoardRow, "rs_flat_pose": _Pose, "rs_flat_car": _Car,
            "rs_flat_track_point": _TrackPoint, "rs_standing": _Standing,
            "rs_flat_stats": _Stats, "rs_flat_weekend": _Weekend,
            "rs_flat_session_def": _SessionDef, "rs_flat_car_class": _CarClass,
            "rs_flat_offered_car": _OfferedCar, "rs_flat_session": _Session,
            "rs_flat_car_info": _CarInfo, "rs_flat_penalty": _Penalty, "rs_flat_chat": _Chat,
            "rs_flat_vote": _Vote, "rs_flat_championship_row": _ChampionshipRow}
# Fields whose Python name differs from the C one (a keyword-free, clearer
# name), for the offset check of tests/test_python_binding.sh.
C_FIELD_NAMES = {("rs_flat_chat", "sender"): "from"}


def _record_class(name, struct, extra=None, more=()):
    """A dataclass with the struct's fields (and more: (name, type, field)
    triples): what the Client hands out, so that nothing a caller keeps
    points into ctypes memory."""
    return dataclasses.make_dataclass(name, [f for f, _ in struct._fields_] + list(more),
                                      namespace=extra or {}, frozen=True)


def _event_type_name(self):
    return EVENT_NAMES.get(self.type, str(self.type))


# Event.detail: the contents of a race weekend's event (Weekend, Penalty,
# ChatLine, Vote, or the list of ChampionshipRow of EV_STANDINGS), None for
# the others.
Event = _record_class("Event", _Event, {"type_name": property(_event_type_name)},
                      [("detail", object, dataclasses.field(default=None))])
Result = _record_class("Result", _Result)
SessionDef = _record_class("SessionDef", _SessionDef)
OfferedCar = _record_class("OfferedCar", _OfferedCar)
# Weekend: the _Weekend fields plus its rows: sessions (SessionDef), classes
# (names) and cars (OfferedCar).
Weekend = _record_class("Weekend", _Weekend, more=[("sessions", tuple), ("classes", tuple),
                                                   ("cars", tuple)])
Session = _record_class("Session", _Session)
CarInfo = _record_class("CarInfo", _CarInfo)
Penalty = _record_class("Penalty", _Penalty)
ChatLine = _record_class("ChatLine", _Chat)
Vote = _record_class("Vote", _Vote)
ChampionshipRow = _record_class("ChampionshipRow", _ChampionshipRow)
BoardRow = _record_class("BoardRow", _BoardRow)
Pose = _record_class("Pose", _Pose)
Car = _record_class("Car", _Car)
TrackPoint = _record_class("TrackPoint", _TrackPoint)
Standing = _record_class("Standing", _Standing)
Stats = _record_class("Stats", _Stats)


def _record(cls, struct, **more):
    values = dict(more)
    for name, ctype in struct._fields_:
        v = getattr(struct, name)
        if isinstance(v, bytes):  # char arrays: text up to its NUL, UTF-8
            v = v.decode("utf-8", "replace")
        elif isinstance(v, ctypes.Array):
            v = tuple(v)
        values[name] = v
    return cls(**values)


# ------------------------------------------------------------ the library

class LayoutError(ImportError):
    """The library's structs differ from this module's mirrors."""


def _declare(lib):
    P = ctypes.POINTER
    vp, cp = ctypes.c_void_p, ctypes.c_char_p
    sigs = {
        "rs_flat_version": (_i32, []),
        "rs_flat_sizeof": (_i32, [cp]),
        "rs_flat_config_new": (vp, []),
        "rs_flat_config_free": (None, [vp]),
        "rs_flat_config_set": (_i32, [vp, cp, cp]),
        "rs_flat_connect": (vp, [vp, cp, _i32, cp, _i32]),
        "rs_flat_close": (None, [vp]),
        "rs_flat_update": (None, [vp]),
        "rs_flat_state": (_i32, [vp]),
        "rs_flat_car": (_i32, [vp]),
        "rs_flat_set_controls": (None, [vp, _f64, _f64, _f64, _f64, _i32]),
        "rs_flat_poll": (_i32, [vp, P(_Event)]),
        "rs_flat_get_result": (_i32, [vp, _i32, P(_Result)]),
        "rs_flat_get_board_row": (_i32, [vp, _i32, P(_BoardRow)]),
        "rs_flat_get_pose": (_i32, [vp, _i32, P(_Pose)]),
        "rs_flat_get_car": (_i32, [vp, P(_Car)]),
        "rs_flat_track_sample": (_i32, [vp, _f64, P(_TrackPoint)]),
        "rs_flat_track_locate": (_i32, [vp, _f64, _f64, P(_TrackPoint)]),
        "rs_flat_track_length": (_f64, [vp]),
        "rs_flat_get_standings": (_i32, [vp, P(_Standing), _i32]),
        "rs_flat_get_stats": (None, [vp, P(_Stats)]),
        "rs_flat_get_weekend": (_i32, [vp, P(_Weekend)]),
        "rs_flat_get_weekend_session": (_i32, [vp, _i32, P(_SessionDef)]),
        "rs_flat_get_car_class": (_i32, [vp, _i32, P(_CarClass)]),
        "rs_flat_get_offered_car": (_i32, [vp, _i32, P(_OfferedCar)]),
        "rs_flat_get_session": (_i32, [vp, P(_Session)]),
        "rs_flat_get_car_info": (_i32, [vp, _i32, P(_CarInfo)]),
        "rs_flat_get_penalty": (_i32, [vp, P(_Penalty)]),
        "rs_flat_get_chat": (_i32, [vp, P(_Chat)]),
        "rs_flat_get_vote": (_i32, [vp, P(_Vote)]),
        "rs_flat_get_championship_row": (_i32, [vp, _i32, P(_ChampionshipRow)]),
        # client.h calls that take only numbers and strings: usable as they are.
        "rs_client_request_leaderboard": (_u32, [vp, _u64, _u64, _u64, _u32, ctypes.c_uint8]),
        "rs_client_chat": (_i32, [vp, cp, cp]),
        "rs_client_command": (_i32, [vp, ctypes.c_uint8, cp, P(_u32)]),
        "rs_client_standings_request": (_i32, [vp, cp, cp, _u32, ctypes.c_uint8, P(_u32)]),
        "rs_client_status_str": (cp, [_i32]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args


def load_library(path=None):
    """Loads libracesim_client (path, else $RACESIM_LIB, else the loader's
    search), declares its calls and checks every mirrored layout."""
    path = path or os.environ.get("RACESIM_LIB") or ctypes.util.find_library("racesim_client")
    try:
        lib = ctypes.CDLL(path or "libracesim_client.so.0")
    except OSError as e:
        raise ImportError(
            "racesim: cannot load libracesim_client (%s); set RACESIM_LIB to its path, e.g. "
            "PREFIX/lib/libracesim_client.so.0 or BUILD/lib/libracesim_client.so" % e) from e
    _declare(lib)
    bad = []
    for c_name, mirror in _MIRRORS.items():
        theirs, ours = lib.rs_flat_sizeof(c_name.encode()), ctypes.sizeof(mirror)
        if theirs != ours:
            bad.append("%s: library %d bytes, racesim.py %d" % (c_name, theirs, ours))
    if bad:
        raise LayoutError("racesim: racesim.py does not match %s (flat version %d, this module "
                          "%d): %s" % (lib._name, lib.rs_flat_version(), FLAT_VERSION,
                                       "; ".join(bad)))
    return lib


_lib = load_library()


# ------------------------------------------------------------ the client

class Client:
    """One connection to a race server. Make it with Client.connect; close
    it with close() or a with-block."""

    def __init__(self, handle):
        self._c = handle

    @classmethod
    def connect(cls, host, port, name="player", token="", **options):
        """Connects over ENet (never blocks: update() completes it; the
        outcome is an EV_CONNECTED, EV_REFUSED or EV_DISCONNECTED event).
        options: any rs_client_config field by name (racesim/client_flat.h),
        e.g. spectator=True, room="fast", timeout_ms=5000. Raises ValueError
        for an unknown option or a bad value, ConnectionError when the
        connection cannot even start."""
        cfg = _lib.rs_flat_config_new()
        if not cfg:
            raise MemoryError("racesim: rs_flat_config_new")
        try:
            options.update(name=name, token=token)
            for key, value in options.items():
                if isinstance(value, bool):
                    value = "1" if value else "0"
                text = None if value is None else str(value).encode()
                st = _lib.rs_flat_config_set(cfg, key.encode(), text)
                if st != OK:
                    raise ValueError("racesim: option %s=%r: %s" % (
                        key, value, _lib.rs_client_status_str(st).decode()))
            err = ctypes.create_string_buffer(512)
            handle = _lib.rs_flat_connect(cfg, host.encode(), int(port), err, len(err))
        finally:
            _lib.rs_flat_config_free(cfg)
        if not handle:
            raise ConnectionError("racesim: connect: %s" % err.value.decode("utf-8", "replace"))
        return cls(handle)

    def _handle(self):
        if not self._c:
            raise ValueError("racesim: the client is closed")
        return self._c

    def close(self):
        """Says BYE (up to 100 ms for it to leave) and frees the client."""
        if self._c:
            _lib.rs_flat_close(self._c)
            self._c = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- every frame

    def controls(self, steer, throttle, brake, handbrake=0.0, gear=GEAR_KEEP):
        """The local car's controls from the next tick on: steer -1 (right)
        .. 1 (left), pedals 0..1, gear a request or GEAR_KEEP."""
        _lib.rs_flat_set_controls(self._handle(), steer, throttle, brake, handbrake, gear)

    def update(self):
        _lib.rs_flat_update(self._handle())

    def events(self):
        """Yields every queued event (Event: ev.type, ev.type_name, ...;
        ev.detail the contents of a race weekend's event)."""
        ev = _Event()
        while _lib.rs_flat_poll(self._handle(), ctypes.byref(ev)):
            # The details of the event just polled, before the next poll
            # replaces them.
            yield _record(Event, ev, detail=self._detail(ev.type))

    def _detail(self, ev_type):
        if ev_type == EV_WEEKEND:
            return self.weekend()
        if ev_type == EV_STANDINGS:
            return self._rows(_lib.rs_flat_get_championship_row, _ChampionshipRow,
                              ChampionshipRow)
        last = {EV_PENALTY: (_lib.rs_flat_get_penalty, _Penalty, Penalty),
                EV_CHAT: (_lib.rs_flat_get_chat, _Chat, ChatLine),
                EV_VOTE: (_lib.rs_flat_get_vote, _Vote, Vote)}.get(ev_type)
        if last is None:
            return None
        fn, struct, cls = last
        out = struct()
        return _record(cls, out) if fn(self._handle(), ctypes.byref(out)) == OK else None

    @property
    def state(self):
        return _lib.rs_flat_state(self._handle())

    @property
    def car_id(self):
        """The local car (0 = none: spectator, or no race)."""
        return _lib.rs_flat_car(self._handle())

    def pose(self, car=None):
        """A car's pose for drawing (default: the local car), or None
        without a world (or a local car). ValueError for an unknown car."""
        car = self.car_id if car is None else car
        if not car:
            return None
        out = _Pose()
        st = _lib.rs_flat_get_pose(self._handle(), car, ctypes.byref(out))
        if st == ERR_ARG:
            raise ValueError("racesim: no car %d" % car)
        return _record(Pose, out) if st == OK else None

    def car(self):
        """The local car for a HUD (Car), or None without one."""
        out = _Car()
        if _lib.rs_flat_get_car(self._handle(), ctypes.byref(out)) != OK:
            return None
        return _record(Car, out)

    # -- race information

    def standings(self):
        """The live race order (Standing rows), leader first."""
        rows = (_Standing * 32)()  # RS_PROTO_MAX_CARS
        n = _lib.rs_flat_get_standings(self._handle(), rows, len(rows))
        return [_record(Standing, r) for r in rows[:min(n, len(rows))]]

    def _rows(self, fn, struct, cls):
        out, rows, i = struct(), [], 0
        while fn(self._handle(), i, ctypes.byref(out)):
            rows.append(_record(cls, out))
            i += 1
        return rows

    def results(self):
        """The rows of the last EV_RESULTS polled (Result), in finishing order."""
        return self._rows(_lib.rs_flat_get_result, _Result, Result)

    def request_leaderboard(self, offset=0, count=10):
        """Asks for the room's track's leaderboard for this car (any tune);
        the EV_LEADERBOARD_REPLY with the returned id brings board_rows()."""
        return _lib.rs_client_request_leaderboard(self._handle(), 0, 0, 0, offset, count)

    def board_rows(self):
        """The rows of the last EV_LEADERBOARD_REPLY polled (BoardRow)."""
        return self._rows(_lib.rs_flat_get_board_row, _BoardRow, BoardRow)

    # -- the race weekend

    def weekend(self):
        """The last EV_WEEKEND polled (Weekend: sessions, classes, cars,
        championship), or None before one."""
        out = _Weekend()
        if _lib.rs_flat_get_weekend(self._handle(), ctypes.byref(out)) != OK:
            return None
        classes, i, cls = [], 0, _CarClass()
        while _lib.rs_flat_get_car_class(self._handle(), i, ctypes.byref(cls)):
            classes.append(cls.name.decode("utf-8", "replace"))
            i += 1
        return _record(Weekend, out,
                       sessions=tuple(self._rows(_lib.rs_flat_get_weekend_session,
                                                 _SessionDef, SessionDef)),
                       classes=tuple(classes),
                       cars=tuple(self._rows(_lib.rs_flat_get_offered_car, _OfferedCar,
                                             OfferedCar)))

    def session(self):
        """The running session (Session: type, time_left_ms, chequered...),
        or None before the first EV_RACE_STATE."""
        out = _Session()
        if _lib.rs_flat_get_session(self._handle(), ctypes.byref(out)) != OK:
            return None
        return _record(Session, out)

    def car_info(self, car=None):
        """A car's driver, class, number, balance of performance and hashes
        (CarInfo; default: the local car), or None when none is known."""
        car = self.car_id if car is None else car
        out = _CarInfo()
        if not car or _lib.rs_flat_get_car_info(self._handle(), car, ctypes.byref(out)) != OK:
            return None
        return _record(CarInfo, out)

    def _sent(self, st, what):
        if st == ERR_ARG:
            raise ValueError("racesim: %s: the server would refuse it" % what)
        if st != OK:
            raise ConnectionError("racesim: %s: %s" % (
                what, _lib.rs_client_status_str(st).decode()))

    def chat(self, text, to=None):
        """A chat line to the room, or privately to the player named to.
        ValueError for a text the server would refuse (empty, over 200
        bytes, control characters such as a newline); ConnectionError when
        not connected. No reply: lines arrive as EV_CHAT events."""
        st = _lib.rs_client_chat(self._handle(), (to or "").encode(), text.encode())
        self._sent(st, "chat")

    def command(self, command, arg=""):
        """A player's command (CMD_*); returns the request id that its
        EV_COMMAND_REPLY echoes. Errors as chat()."""
        rid = _u32()
        st = _lib.rs_client_command(self._handle(), command, (arg or "").encode(),
                                    ctypes.byref(rid))
        self._sent(st, "command")
        return rid.value

    def select_car(self, car):
        """Drive another offered car from the next session on: its name, or
        its base_hash (an int, as OfferedCar.base_hash)."""
        arg = "%016x" % car if isinstance(car, int) else car
        return self.command(CMD_SELECT_CAR, arg)

    def mute(self, player):
        return self.command(CMD_MUTE, player)

    def unmute(self, player):
        return self.command(CMD_UNMUTE, player)

    def vote(self, yes=True):
        """Answers the open vote."""
        return self.command(CMD_VOTE_YES if yes else CMD_VOTE_NO)

    def request_standings(self, championship="", class_name="", offset=0, count=10):
        """A page of a championship's standings ("" = the room's own), of one
        class or every driver; returns the request id its EV_STANDINGS
        echoes (ev.detail: the rows, ev.total: drivers in all)."""
        rid = _u32()
        st = _lib.rs_client_standings_request(self._handle(), championship.encode(),
                                              class_name.encode(), offset, count,
                                              ctypes.byref(rid))
        self._sent(st, "standings request")
        return rid.value

    def stats(self):
        out = _Stats()
        _lib.rs_flat_get_stats(self._handle(), ctypes.byref(out))
        return _record(Stats, out)

    # -- the track

    def track_length(self):
        """The centre line's length in metres, 0 without a world."""
        return _lib.rs_flat_track_length(self._handle())

    def track_sample(self, s_m):
        """The centre line at station s_m (wrapped), or None without a world."""
        out = _TrackPoint()
        if _lib.rs_flat_track_sample(self._handle(), s_m, ctypes.byref(out)) != OK:
            return None
        return _record(TrackPoint, out)

    def track_locate(self, x_m, y_m):
        """Where (x_m, y_m) lies relative to the centre line, or None
        without a world or nowhere near the track."""
        out = _TrackPoint()
        if _lib.rs_flat_track_locate(self._handle(), x_m, y_m, ctypes.byref(out)) != OK:
            return None
        return _record(TrackPoint, out)
