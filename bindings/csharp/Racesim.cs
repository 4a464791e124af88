// racesim client SDK for C#: a thin P/Invoke binding over libracesim_client's
// flat API (client_sdk/include/racesim/client_flat.h), for Mono, .NET, Unity
// and Godot's C#. No callbacks, no unsafe code, C# 7.
//
//     using (var client = RacesimClient.Connect("127.0.0.1", 27960, "alice"))
//     {
//         for (;;)                                        // every frame
//         {
//             client.SetControls(steer, throttle, brake);
//             client.Update();
//             foreach (var ev in client.Events()) { ... } // ev.Type: EventType
//             RacesimPose pose;
//             if (client.GetPose(client.Car, out pose)) { ... draw ... }
//         }
//     }
//
// The native library is found by the name "racesim_client" (libracesim_client.so,
// racesim_client.dll, libracesim_client.dylib): see README.md for Mono, Unity and
// Godot. On first use the binding checks every struct mirror below against the
// library's own sizes (rs_flat_sizeof) and refuses to run on a mismatch.
//
// Thread rules as the C SDK: one client, one thread at a time.

using System;
using System.Collections.Generic;
using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;

namespace Racesim
{
    // ------------------------------------------------------------ constants

    /// <summary>rs_client_event_type: RacesimEvent.Type.</summary>
    public enum EventType
    {
        None = 0,
        Connected = 1,        // admitted; PlayerId, Text = token to store, Flags 1 = spectator, Value = tick Hz
        Refused = 2,          // Code: Reason, Text
        CarInfo = 3,          // Car, Code: CarFlags, PlayerId, Text = driver's name
        WorldReady = 4,       // Car = the local car, Count = cars, RaceNumber, Tick
        RaceState = 5,        // Code: Phase, Count = laps, RaceNumber
        Sector = 6,           // Car, Lap, Code = sector (0-based), TimeUs, Tick
        Lap = 7,              // Car, Lap, Position, Flags: LapFlags, Valid, TimeUs, Tick
        Collision = 8,        // Car, Code = other car (0 = barrier), Value = impulse N s, Tick
        Finish = 9,           // Car, Lap = laps driven, Position, TimeUs = last lap
        Results = 10,         // Count rows: RacesimClient.GetResults()
        LeaderboardReply = 11,// Code: Result, Count rows (GetLeaderboardRows), Total
        TuneReply = 12,       // Code: Result, Text, Total
        AdminReply = 13,      // Code: Result, Text
        TokenReply = 14,      // Code: Result, Text = the new token
        Error = 15,           // Code: ClientError, Text, Tick
        Disconnected = 16,    // Code: Reason, Text. The last event
        // The race weekend (protocol version 6): the details of each come from the
        // RacesimClient call named, made before the next event is polled.
        Weekend = 17,         // Count = sessions, Text = championship: GetWeekend()
        Penalty = 18,         // RequestId = its id, Car, Code: PenaltyKind, Flags 1 = taken back,
                              // Tick, Text = why: GetPenalty()
        Chat = 19,            // Code: ChatKind, PlayerId = sender's, Text = the line: GetChat()
        CommandReply = 20,    // RequestId, Code: Result, Text
        Vote = 21,            // RequestId = the vote's id, Code: VoteState, Text = subject: GetVote()
        Standings = 22,       // RequestId, Code: Result, Count rows, Total, Text = championship:
                              // GetChampionshipRows()
    }

    /// <summary>rs_client_state: RacesimClient.State.</summary>
    public enum ClientState
    {
        Connecting = 0,
        Hello = 1,
        Connected = 2,
        Closed = 3,
    }

    /// <summary>rs_client_error: the Code of an Error event.</summary>
    public static class ClientError
    {
        public const int Desync = 1, Params = 2, Snapshot = 3, Protocol = 4, Behind = 5;
    }

    /// <summary>rs_client_status: what the flat calls return.</summary>
    public static class Status
    {
        public const int Ok = 0, ErrArg = 1, ErrNoMem = 2, ErrNet = 3, ErrState = 4;
    }

    /// <summary>rs_proto_reason: the Code of Refused and Disconnected events.</summary>
    public static class Reason
    {
        public const int None = 0, Version = 1, Physics = 2, Auth = 3, NameTaken = 4, NoRoom = 5,
            Password = 6, Full = 7, Banned = 8, Kicked = 9, Shutdown = 10, Timeout = 11,
            Malformed = 12, Params = 13, Other = 14, ServerKey = 15, BadName = 16, Replaced = 17;

        public static string Name(int reason)
        {
            switch (reason)
            {
                case None: return "none"; case Version: return "version"; case Physics: return "physics";
                case Auth: return "auth"; case NameTaken: return "name taken"; case NoRoom: return "no room";
                case Password: return "password"; case Full: return "full"; case Banned: return "banned";
                case Kicked: return "kicked"; case Shutdown: return "shutdown"; case Timeout: return "timeout";
                case Malformed: return "malformed"; case Params: return "params"; case Other: return "other";
                case ServerKey: return "server key"; case BadName: return "bad name"; case Replaced: return "replaced";
                default: return "reason " + reason.ToString(CultureInfo.InvariantCulture);
            }
        }
    }

    /// <summary>RS_PHASE_*: the Code of a RaceState event.</summary>
    public static class Phase
    {
        public const int Lobby = 0, Countdown = 1, Race = 2, Results = 3;
    }

    /// <summary>rs_proto_result: the Code of the reply events.</summary>
    public static class Result
    {
        public const int Ok = 0, NotFound = 1, Invalid = 2, Denied = 3, Busy = 4, Error = 5;
    }

    /// <summary>RS_LAP_*: the Flags of a Lap event.</summary>
    public static class LapFlags
    {
        public const int Recorded = 1, PersonalBest = 2, TrackRecord = 4;
    }

    /// <summary>RS_CAR_*: the Code of a CarInfo event.</summary>
    public static class CarFlags
    {
        public const int Connected = 1, Bot = 2;
    }

    /// <summary>rs_race_status: RacesimCar.Status, RacesimStanding.Status.</summary>
    public enum RaceStatus
    {
        Grid = 0,
        Racing = 1,
        Finished = 2,
    }

    /// <summary>RS_SESSION_*: the Type of a session (RacesimSession, RacesimSessionDef).</summary>
    public static class SessionType
    {
        public const int Practice = 0, Qualifying = 1, Warmup = 2, Race = 3;
    }

    /// <summary>RS_GRID_*: where a race's grid comes from (RacesimSessionDef.GridSource).</summary>
    public static class GridSource
    {
        public const int JoinOrder = 0, Qualifying = 1, PreviousRace = 2;
    }

    /// <summary>RS_CLASSIFIED...: RacesimResult.Status.</summary>
    public static class ResultStatus
    {
        public const int Classified = 0, NotClassified = 1, Disqualified = 2;
    }

    /// <summary>RS_PENALTY_*: RacesimPenalty.Kind, the Code of a Penalty event.</summary>
    public static class PenaltyKind
    {
        public const int Time = 0, Dsq = 1, Warning = 2;
    }

    /// <summary>RS_OFFENCE_*: RacesimPenalty.Offence.</summary>
    public static class Offence
    {
        public const int TrackLimits = 0, Contact = 1, JumpStart = 2, Admin = 3;
    }

    /// <summary>RS_CHAT_*: RacesimChat.Kind, the Code of a Chat event.</summary>
    public static class ChatKind
    {
        public const int Room = 0, Private = 1, Announce = 2, System = 3;
    }

    /// <summary>RS_CMD_*: the commands of RacesimClient.Command.</summary>
    public static class Command
    {
        public const int Mute = 0, Unmute = 1, VoteKick = 2, VoteRestart = 3, VoteSkip = 4,
            VoteTrack = 5, VoteYes = 6, VoteNo = 7, SelectCar = 8;
    }

    /// <summary>RS_VOTE_* kinds: RacesimVote.Kind.</summary>
    public static class VoteKind
    {
        public const int Kick = 0, Restart = 1, Skip = 2, Track = 3;
    }

    /// <summary>RS_VOTE_* states: RacesimVote.State, the Code of a Vote event.</summary>
    public static class VoteState
    {
        public const int Open = 0, Passed = 1, Failed = 2;
    }

    /// <summary>rs_surface: RacesimTrackPoint.Surface.</summary>
    public static class Surface
    {
        public const int Asphalt = 0, Kerb = 1, Grass = 2, Gravel = 3;
    }

    /// <summary>Gear requests for SetControls: -1 reverse, 0 neutral, 1.. forward (cars start
    /// in Drive on their automatic gearbox), Keep (RS_GEAR_KEEP) for none.</summary>
    public static class Gear
    {
        public const int Keep = -128, Reverse = -1, Neutral = 0, Drive = 1;
    }

    // -------------------------------------------------- struct mirrors
    // Field for field as client_flat.h declares them (int32_t = int, uint32_t = uint,
    // int64_t = long, uint64_t = ulong, double, char[N] = byte[N] of UTF-8); the
    // sizes are checked against the library on first use (Library.Check).

    /// <summary>rs_flat_event: one event, every kind in one layout (unused fields 0).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimEvent
    {
        public EventType Type;  // int32_t type
        public int Car;
        public int Lap;
        public int Position;
        public int Code;
        public int Flags;
        public int Valid;
        public int Count;
        public uint RequestId;
        public uint RaceNumber;
        public long TimeUs;
        public long Tick;
        public long PlayerId;
        public long Total;
        public double Value;
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 1024)]
        public byte[] TextBytes; // char text[1024]

        /// <summary>The text (UTF-8 up to the first NUL).</summary>
        public string Text { get { return Native.FromUtf8(TextBytes); } }

        public override string ToString()
        {
            return string.Format(CultureInfo.InvariantCulture,
                "{0} car {1} lap {2} pos {3} code {4} flags {5} count {6} time {7} us tick {8} \"{9}\"",
                Type, Car, Lap, Position, Code, Flags, Count, TimeUs, Tick, Text);
        }
    }

    /// <summary>rs_flat_result: a row of the last RESULTS, in finishing order.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimResult
    {
        public int Car;
        public int Position;    // 1..
        public int Laps;
        public int Finished;    // 1 = took the flag
        public long FinishUs;   // race clock at the flag, -1 = did not finish
        public long BestLapUs;  // -1 = no valid lap
        public int ClassPosition; // within its class, 1..; 0 = the room has no classes
        public int Status;      // ResultStatus
        public int PenaltyMs;   // time penalties counted in the position
        public int LapsLed;
    }

    /// <summary>rs_flat_board_row: a row of the last LEADERBOARD_REPLY.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimBoardRow
    {
        public int Rank;
        public int Reserved;
        public long TimeUs;
        public long RecordedAt; // unix seconds
        public ulong TuneHash;  // 0 = stock
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 64)]
        public byte[] NameBytes; // char name[64]

        public string Name { get { return Native.FromUtf8(NameBytes); } }
    }

    /// <summary>rs_flat_pose: a car for drawing, interpolated at the present time.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimPose
    {
        public double X, Y, Z;         // centre of mass, world frame, m
        public double Yaw;             // rad, 0 = +x, counter-clockwise
        public double Pitch, Roll;     // rad
        public double Speed;           // m/s along the ground
        public double QuatW, QuatX, QuatY, QuatZ; // double quat[4]: body to world
    }

    /// <summary>rs_flat_car: the local car for a HUD (Car 0 = none).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimCar
    {
        public int Car;
        public int Gear;          // -1 R, 0 N, 1..
        public int Lap;           // 1 = first, 0 on the grid
        public int Laps;          // of the race, 0 = open
        public int Position;
        public RaceStatus Status; // int32_t status
        public double Speed;      // m/s forward
        public double EngineRpm;
        public long LapTimeUs;    // -1 on the grid
        public long LastLapUs;    // -1 = none
        public long BestLapUs;    // -1 = none
        public long RaceTimeUs;   // negative before lights out
    }

    /// <summary>rs_flat_track_point: a centre-line sample, or where a point lies.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimTrackPoint
    {
        public double S;            // station, [0, length)
        public double X, Y;         // sample: centre line; locate: the point given
        public double Heading;      // rad
        public double Curvature;    // 1/m, + = turning left (sample only)
        public double Offset;       // m from the centre line, + = left (locate only)
        public double WidthLeft, WidthRight;
        public int InsideLimits;    // locate: 1 between the edges
        public int Surface;         // locate: Surface.*
    }

    /// <summary>rs_standing: one car's place in the live order.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimStanding
    {
        public ushort Car;
        public byte Status;          // RaceStatus
        public byte LapValid;
        public uint Position;
        public uint LapsCompleted;
        public uint LapsBehind;
        public long GapUs;           // -1 = not known
        public uint IntervalLaps;
        public uint Reserved;
        public long IntervalUs;      // -1 = not known
        public long LastLapUs;       // -1 = none
        public long BestLapUs;       // -1 = none
        public long FinishUs;        // -1 = not finished
    }

    /// <summary>rs_flat_stats: rs_client_stats with every field 64 bits (no padding).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimStats
    {
        public double RttMs;
        public double SilentMs;        // since the last message from the server
        public double JitterMs;
        public double Loss;
        public double InputLeadMs;     // -32768 = unknown
        public double TargetLeadMs;
        public double ClockRate;
        public double RollbacksPerS;
        public double LocalErrorMLast, LocalErrorMMax, LocalErrorMMean;
        public long LateInputs;
        public long Rollbacks;
        public long DepthP50, DepthP99, DepthMax;
        public long Desyncs;
        public long HashesChecked;
        public long Snapshots;
        public long ConfirmedTick, PresentTick;
        public long Frames, FramesUnresolvable;
        public long InputsSent;
        public long Malformed;
        public long EventsDropped;
        public long BytesIn, BytesOut, PacketsIn, PacketsOut;
        public long WireBytesIn, WireBytesOut;
        public long WirePacketsIn, WirePacketsOut;
        public long TransportErrors;
        public long SealedRejected;
    }

    // ------------------------------------------- the race weekend's mirrors

    /// <summary>rs_flat_weekend: the last Weekend event polled (RacesimClient.GetWeekend
    /// gathers it with its rows into a Weekend).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimWeekend
    {
        public int Weekend;       // weekends begun in this room, 1..
        public int SessionCount;
        public int ClassCount;
        public int CarCount;      // cars offered
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 64)]
        public byte[] ChampionshipBytes; // char championship[64], "" = none

        public string Championship { get { return Native.FromUtf8(ChampionshipBytes); } }
    }

    /// <summary>rs_flat_session_def: a session of the weekend, in the order the room runs them.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimSessionDef
    {
        public int Index;
        public int Type;          // SessionType
        public int Laps;          // lap-limited; 0 = timed
        public int TimeLimitS;    // timed; 0 = lap-limited
        public int GridSource;    // races: GridSource
        public int GridReverse;   // races: the first this many start reversed
    }

    /// <summary>rs_flat_car_class: a car class of the weekend.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimCarClass
    {
        public int Index;
        public int Reserved;
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 64)]
        public byte[] NameBytes;

        public string Name { get { return Native.FromUtf8(NameBytes); } }
    }

    /// <summary>rs_flat_offered_car: a car the room offers; pick it by BaseHash (the "car_hash"
    /// option of Connect, or RacesimClient.SelectCar).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimOfferedCar
    {
        public ulong BaseHash;
        public int Index;
        public int ClassIndex;
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 64)]
        public byte[] NameBytes;
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 64)]
        public byte[] ClassNameBytes;

        public string Name { get { return Native.FromUtf8(NameBytes); } }
        public string ClassName { get { return Native.FromUtf8(ClassNameBytes); } }
    }

    /// <summary>rs_flat_session: the running session, for a HUD.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimSession
    {
        public int Index;         // its place in the weekend
        public int Type;          // SessionType
        public int Laps;          // lap-limited: its laps, else 0
        public int TimeLimitMs;   // timed: its length, else 0
        public int Chequered;     // 1 = the chequered flag is out
        public int Phase;         // Phase of the last RaceState
        public long TimeLeftMs;   // timed: never below 0; -1 = lap-limited
    }

    /// <summary>rs_flat_car_info: a car, who drives it, its class, number and balance of
    /// performance.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimCarInfo
    {
        public int Car;
        public int Flags;         // CarFlags
        public int ClassIndex;
        public int Number;        // race number, 0 = none
        public int BallastKg;
        public int RestrictorPct;
        public long PlayerId;     // 0 = a guest or a bot
        public ulong ParamsHash;
        public ulong BaseHash;    // an offered car's
        public ulong TuneHash;    // 0 = stock
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 64)]
        public byte[] NameBytes;
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 64)]
        public byte[] ClassNameBytes;
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 64)]
        public byte[] CarNameBytes;

        public string Name { get { return Native.FromUtf8(NameBytes); } }           // the driver
        public string ClassName { get { return Native.FromUtf8(ClassNameBytes); } }
        public string CarName { get { return Native.FromUtf8(CarNameBytes); } }     // the offered car's
    }

    /// <summary>rs_flat_penalty: the last Penalty event polled.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimPenalty
    {
        public uint Id;
        public int Car;
        public int Kind;          // PenaltyKind
        public int Offence;       // Offence
        public int Seconds;       // Time: seconds added
        public int Removed;       // 1 = taken back
        public long Tick;
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 256)]
        public byte[] TextBytes;

        public string Text { get { return Native.FromUtf8(TextBytes); } } // why
    }

    /// <summary>rs_flat_chat: the last Chat event polled.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimChat
    {
        public int Kind;          // ChatKind
        public int IsPrivate;     // 1 = to this player only
        public int Announcement;  // 1 = from the server or an administrator
        public int Reserved;
        public long PlayerId;     // the sender's, 0 = a guest or the server
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 64)]
        public byte[] FromBytes;
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 256)]
        public byte[] TextBytes;

        public string From { get { return Native.FromUtf8(FromBytes); } } // "" = the server
        public string Text { get { return Native.FromUtf8(TextBytes); } }
    }

    /// <summary>rs_flat_vote: the last Vote event polled.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimVote
    {
        public uint Id;
        public int Kind;          // VoteKind
        public int State;         // VoteState
        public int Yes, No;
        public int Eligible, Needed;
        public int EndsInMs;      // Open: time left
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 128)]
        public byte[] SubjectBytes;
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 64)]
        public byte[] ByBytes;

        public string Subject { get { return Native.FromUtf8(SubjectBytes); } } // kick: player; track: track
        public string By { get { return Native.FromUtf8(ByBytes); } }
    }

    /// <summary>rs_flat_championship_row: a row of the last Standings event polled.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RacesimChampionshipRow
    {
        public int Position;
        public int Points;
        public int Events;
        public int Wins;
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 64)]
        public byte[] NameBytes;
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 64)]
        public byte[] ClassNameBytes;

        public string Name { get { return Native.FromUtf8(NameBytes); } }
        public string ClassName { get { return Native.FromUtf8(ClassNameBytes); } }
    }

    /// <summary>What the room runs (the last Weekend event polled): immutable.</summary>
    public sealed class Weekend
    {
        public int Number { get; private set; }          // weekends begun in this room
        public string Championship { get; private set; } // "" = none
        public RacesimSessionDef[] Sessions { get; private set; }
        public string[] Classes { get; private set; }
        public RacesimOfferedCar[] Cars { get; private set; }

        public Weekend(int number, string championship, RacesimSessionDef[] sessions, string[] classes,
                       RacesimOfferedCar[] cars)
        {
            Number = number;
            Championship = championship;
            Sessions = sessions;
            Classes = classes;
            Cars = cars;
        }
    }

    // ------------------------------------------------------------ P/Invoke

    /// <summary>The flat C calls as they are. Strings go in as NUL-terminated UTF-8 byte
    /// arrays (Native.Utf8), whatever the platform's "ANSI" is.</summary>
    public static class Native
    {
        public const string Lib = "racesim_client";
        const CallingConvention CC = CallingConvention.Cdecl;

        [DllImport(Lib, CallingConvention = CC)] public static extern int rs_flat_version();
        [DllImport(Lib, CallingConvention = CC)] public static extern int rs_flat_sizeof(byte[] name);

        [DllImport(Lib, CallingConvention = CC)] public static extern IntPtr rs_flat_config_new();
        [DllImport(Lib, CallingConvention = CC)] public static extern void rs_flat_config_free(IntPtr cfg);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_config_set(IntPtr cfg, byte[] key, byte[] value);

        [DllImport(Lib, CallingConvention = CC)]
        public static extern IntPtr rs_flat_connect(IntPtr cfg, byte[] host, int port,
                                                    [In, Out] byte[] err, int errLen);
        [DllImport(Lib, CallingConvention = CC)] public static extern void rs_flat_close(IntPtr c);
        [DllImport(Lib, CallingConvention = CC)] public static extern void rs_flat_update(IntPtr c);
        [DllImport(Lib, CallingConvention = CC)] public static extern int rs_flat_state(IntPtr c);
        [DllImport(Lib, CallingConvention = CC)] public static extern int rs_flat_car(IntPtr c);

        [DllImport(Lib, CallingConvention = CC)]
        public static extern void rs_flat_set_controls(IntPtr c, double steer, double throttle,
                                                       double brake, double handbrake, int gear);

        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_poll(IntPtr c, out RacesimEvent ev);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_get_result(IntPtr c, int i, out RacesimResult row);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_get_board_row(IntPtr c, int i, out RacesimBoardRow row);

        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_get_pose(IntPtr c, int car, out RacesimPose pose);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_get_car(IntPtr c, out RacesimCar car);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_track_sample(IntPtr c, double s, out RacesimTrackPoint p);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_track_locate(IntPtr c, double x, double y,
                                                      out RacesimTrackPoint p);
        [DllImport(Lib, CallingConvention = CC)] public static extern double rs_flat_track_length(IntPtr c);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_get_standings(IntPtr c, [In, Out] RacesimStanding[] rows,
                                                       int cap);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern void rs_flat_get_stats(IntPtr c, out RacesimStats stats);

        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_get_weekend(IntPtr c, out RacesimWeekend w);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_get_weekend_session(IntPtr c, int i, out RacesimSessionDef s);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_get_car_class(IntPtr c, int i, out RacesimCarClass k);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_get_offered_car(IntPtr c, int i, out RacesimOfferedCar car);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_get_session(IntPtr c, out RacesimSession s);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_get_car_info(IntPtr c, int car, out RacesimCarInfo info);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_get_penalty(IntPtr c, out RacesimPenalty p);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_get_chat(IntPtr c, out RacesimChat chat);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_get_vote(IntPtr c, out RacesimVote vote);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_flat_get_championship_row(IntPtr c, int i,
                                                              out RacesimChampionshipRow row);

        // The requests of racesim/client.h take only numbers and strings: called as they are.
        [DllImport(Lib, CallingConvention = CC)]
        public static extern uint rs_client_request_leaderboard(IntPtr c, ulong trackHash,
                                                                ulong baseHash, ulong tuneKey,
                                                                uint offset, byte count);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern uint rs_client_tune_save(IntPtr c, byte[] name, byte[] json);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern uint rs_client_tune_load(IntPtr c, byte[] name);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern uint rs_client_tune_list(IntPtr c, ulong baseHash, uint offset);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern uint rs_client_tune_select(IntPtr c, byte[] name);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern uint rs_client_admin(IntPtr c, byte command, byte[] arg, byte[] reason,
                                                  uint durationS);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern uint rs_client_rotate_token(IntPtr c);
        // The race weekend's requests return a Status and write the request id.
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_client_chat(IntPtr c, byte[] to, byte[] text);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_client_command(IntPtr c, byte command, byte[] arg, out uint requestId);
        [DllImport(Lib, CallingConvention = CC)]
        public static extern int rs_client_standings_request(IntPtr c, byte[] championship,
                                                             byte[] className, uint offset, byte count,
                                                             out uint requestId);

        /// <summary>s as NUL-terminated UTF-8 (null stays null: a NULL pointer).</summary>
        public static byte[] Utf8(string s)
        {
            if (s == null)
                return null;
            int n = Encoding.UTF8.GetByteCount(s);
            var b = new byte[n + 1];
            Encoding.UTF8.GetBytes(s, 0, s.Length, b, 0);
            return b;
        }

        /// <summary>A C string in a fixed buffer: UTF-8 up to the first NUL.</summary>
        public static string FromUtf8(byte[] b)
        {
            if (b == null)
                return "";
            int n = Array.IndexOf(b, (byte)0);
            return Encoding.UTF8.GetString(b, 0, n < 0 ? b.Length : n);
        }
    }

    /// <summary>Something the native library said no to, or a library that does not fit.</summary>
    public class RacesimException : Exception
    {
        public RacesimException(string message) : base(message) { }
        public RacesimException(string message, Exception inner) : base(message, inner) { }
    }

    /// <summary>The native library: loaded and checked once.</summary>
    public static class Library
    {
        /// <summary>The flat layer version these mirrors were written for (RS_FLAT_VERSION).</summary>
        public const int FlatVersion = 2;

        static readonly object Lock = new object();
        static bool checkedOk;

        /// <summary>Loads libracesim_client and compares every mirror's Marshal.SizeOf with
        /// rs_flat_sizeof; throws RacesimException on a missing library or any mismatch.
        /// RacesimClient.Connect calls it; calling it again is free.</summary>
        public static void Check()
        {
            lock (Lock)
            {
                if (checkedOk)
                    return;
                int version;
                try
                {
                    version = Native.rs_flat_version();
                }
                catch (DllNotFoundException e)
                {
                    throw new RacesimException(
                        "racesim: cannot load the native library '" + Native.Lib +
                        "' (libracesim_client.so / racesim_client.dll): put it next to the program " +
                        "or in the engine's plugin folder, or point LD_LIBRARY_PATH at its folder", e);
                }
                catch (EntryPointNotFoundException e)
                {
                    throw new RacesimException(
                        "racesim: the native library has no flat API (rs_flat_version): it is older " +
                        "than client_flat.h", e);
                }
                if (version < FlatVersion)
                    throw new RacesimException(string.Format(CultureInfo.InvariantCulture,
                        "racesim: the native library's flat API is version {0}, this binding needs {1}",
                        version, FlatVersion));
                var bad = new List<string>();
                Compare<RacesimEvent>("rs_flat_event", bad);
                Compare<RacesimResult>("rs_flat_result", bad);
                Compare<RacesimBoardRow>("rs_flat_board_row", bad);
                Compare<RacesimPose>("rs_flat_pose", bad);
                Compare<RacesimCar>("rs_flat_car", bad);
                Compare<RacesimTrackPoint>("rs_flat_track_point", bad);
                Compare<RacesimStanding>("rs_standing", bad);
                Compare<RacesimStats>("rs_flat_stats", bad);
                Compare<RacesimWeekend>("rs_flat_weekend", bad);
                Compare<RacesimSessionDef>("rs_flat_session_def", bad);
                Compare<RacesimCarClass>("rs_flat_car_class", bad);
                Compare<RacesimOfferedCar>("rs_flat_offered_car", bad);
                Compare<RacesimSession>("rs_flat_session", bad);
                Compare<RacesimCarInfo>("rs_flat_car_info", bad);
                Compare<RacesimPenalty>("rs_flat_penalty", bad);
                Compare<RacesimChat>("rs_flat_chat", bad);
                Compare<RacesimVote>("rs_flat_vote", bad);
                Compare<RacesimChampionshipRow>("rs_flat_championship_row", bad);
                if (bad.Count > 0)
                    throw new RacesimException(
                        "racesim: the C# struct mirrors do not match the native library (flat version " +
                        version.ToString(CultureInfo.InvariantCulture) + "): " + string.Join("; ", bad.ToArray()) +
                        ". Use the Racesim.cs that came with this library.");
                checkedOk = true;
            }
        }

        static void Compare<T>(string cName, List<string> bad)
        {
            int mine = Marshal.SizeOf(typeof(T));
            int theirs = Native.rs_flat_sizeof(Native.Utf8(cName));
            if (mine != theirs)
                bad.Add(string.Format(CultureInfo.InvariantCulture, "{0} is {1} bytes here, {2} in the library{3}",
                                      typeof(T).Name, mine, theirs, theirs == 0 ? " (unknown to it)" : ""));
        }
    }

    // ------------------------------------------------------------ the client

    /// <summary>One connection to a race server. Call Update once per frame; read events,
    /// poses and the HUD's car after it. Dispose says goodbye and frees the native client.</summary>
    public sealed class RacesimClient : IDisposable
    {
        IntPtr handle;

        RacesimClient(IntPtr handle)
        {
            this.handle = handle;
        }

        /// <summary>Connects (without blocking: the outcome is a Connected, Refused or
        /// Disconnected event from Update). name: 1..32 bytes of UTF-8; token: a registered
        /// player's 64 hex digits, null or "" for a guest; options: more rs_client_config
        /// fields by name ("room", "password", "server_key", "known_hosts", "spectator",
        /// "register_player", "timeout_ms", ...), values as text, numbers or bools.</summary>
        public static RacesimClient Connect(string host, int port, string name, string token = null,
                                            IDictionary<string, object> options = null)
        {
            if (host == null)
                throw new ArgumentNullException("host");
            if (name == null)
                throw new ArgumentNullException("name");
            Library.Check();
            IntPtr cfg = Native.rs_flat_config_new();
            if (cfg == IntPtr.Zero)
                throw new OutOfMemoryException("rs_flat_config_new");
            try
            {
                Set(cfg, "name", name);
                if (!string.IsNullOrEmpty(token))
                    Set(cfg, "token", token);
                if (options != null)
                    foreach (var kv in options)
                        Set(cfg, kv.Key, OptionText(kv.Value));
                var err = new byte[512];
                IntPtr c = Native.rs_flat_connect(cfg, Native.Utf8(host), port, err, err.Length);
                if (c == IntPtr.Zero)
                    throw new RacesimException("racesim: connect to " + host + ":" +
                                               port.ToString(CultureInfo.InvariantCulture) + ": " +
                                               Native.FromUtf8(err));
                return new RacesimClient(c);
            }
            finally
            {
                Native.rs_flat_config_free(cfg);
            }
        }

        static void Set(IntPtr cfg, string key, string value)
        {
            if (key == null)
                throw new ArgumentNullException("key");
            if (Native.rs_flat_config_set(cfg, Native.Utf8(key), Native.Utf8(value ?? "")) != Status.Ok)
                throw new ArgumentException("racesim: unknown option or bad value: " + key + " = \"" +
                                            value + "\"", "options");
        }

        static string OptionText(object v)
        {
            if (v == null)
                return "";
            if (v is bool)
                return (bool)v ? "1" : "0";
            var f = v as IFormattable;
            return f != null ? f.ToString(null, CultureInfo.InvariantCulture) : v.ToString();
        }

        IntPtr H
        {
            get
            {
                if (handle == IntPtr.Zero)
                    throw new ObjectDisposedException("RacesimClient");
                return handle;
            }
        }

        /// <summary>Where the connection stands.</summary>
        public ClientState State { get { return (ClientState)Native.rs_flat_state(H); } }

        /// <summary>The local car (0 = none: spectator, or no race yet).</summary>
        public int Car { get { return Native.rs_flat_car(H); } }

        /// <summary>The current track's centre-line length, 0 without a world.</summary>
        public double TrackLength { get { return Native.rs_flat_track_length(H); } }

        /// <summary>The local car's controls from the next tick on: steer -1 (right) .. 1 (left),
        /// pedals 0..1, gear a request or Gear.Keep.</summary>
        public void SetControls(double steer, double throttle, double brake, double handbrake = 0.0,
                                int gear = Gear.Keep)
        {
            Native.rs_flat_set_controls(H, steer, throttle, brake, handbrake, gear);
        }

        /// <summary>Requests (racesim/client.h): each returns its request id, echoed by the
        /// reply event (EventType.LeaderboardReply, TuneReply, AdminReply, TokenReply), or 0
        /// when it cannot be sent. Hashes 0 mean the room's track and the player's car;
        /// tuneKey 0 any tune, ulong.MaxValue stock.</summary>
        public uint RequestLeaderboard(ulong trackHash = 0, ulong baseHash = 0, ulong tuneKey = 0,
                                       uint offset = 0, byte count = 10)
        {
            return Native.rs_client_request_leaderboard(H, trackHash, baseHash, tuneKey, offset,
                                                        count);
        }
        public uint TuneSave(string name, string json)
        {
            return Native.rs_client_tune_save(H, Native.Utf8(name), Native.Utf8(json));
        }
        public uint TuneLoad(string name) { return Native.rs_client_tune_load(H, Native.Utf8(name)); }
        public uint TuneList(ulong baseHash = 0, uint offset = 0)
        {
            return Native.rs_client_tune_list(H, baseHash, offset);
        }
        public uint TuneSelect(string name) { return Native.rs_client_tune_select(H, Native.Utf8(name)); }
        public uint Admin(byte command, string arg, string reason = null, uint durationS = 0)
        {
            return Native.rs_client_admin(H, command, Native.Utf8(arg ?? ""), Native.Utf8(reason),
                                          durationS);
        }
        public uint RotateToken() { return Native.rs_client_rotate_token(H); }

        /// <summary>Network, clock, prediction: once per frame (at least once per tick).</summary>
        public void Update()
        {
            Native.rs_flat_update(H);
        }

        /// <summary>The oldest queued event, false when none is queued.</summary>
        public bool PollEvent(out RacesimEvent ev)
        {
            return Native.rs_flat_poll(H, out ev) != 0;
        }

        /// <summary>Every queued event, oldest first (polls while enumerated).</summary>
        public IEnumerable<RacesimEvent> Events()
        {
            RacesimEvent ev;
            while (PollEvent(out ev))
                yield return ev;
        }

        /// <summary>A car's pose for drawing, interpolated at the present time; false without a
        /// world or for an unknown car.</summary>
        public bool GetPose(int car, out RacesimPose pose)
        {
            return Native.rs_flat_get_pose(H, car, out pose) == Status.Ok;
        }

        /// <summary>The local car for a HUD (Car 0 = no car).</summary>
        public RacesimCar GetCar()
        {
            RacesimCar car;
            Native.rs_flat_get_car(H, out car);
            return car;
        }

        /// <summary>The live race order, leader first (empty without a world).</summary>
        public RacesimStanding[] GetStandings()
        {
            var rows = new RacesimStanding[32];
            int n = Native.rs_flat_get_standings(H, rows, rows.Length);
            if (n > rows.Length)
            {
                rows = new RacesimStanding[n];
                n = Native.rs_flat_get_standings(H, rows, rows.Length);
            }
            if (n < 0)
                n = 0;
            Array.Resize(ref rows, Math.Min(n, rows.Length));
            return rows;
        }

        /// <summary>The rows of the last Results event, in finishing order.</summary>
        public RacesimResult[] GetResults()
        {
            var list = new List<RacesimResult>();
            RacesimResult row;
            while (Native.rs_flat_get_result(H, list.Count, out row) != 0)
                list.Add(row);
            return list.ToArray();
        }

        /// <summary>The rows of the last LeaderboardReply event.</summary>
        public RacesimBoardRow[] GetLeaderboardRows()
        {
            var list = new List<RacesimBoardRow>();
            RacesimBoardRow row;
            while (Native.rs_flat_get_board_row(H, list.Count, out row) != 0)
                list.Add(row);
            return list.ToArray();
        }

        // ------------------------------------------------ the race weekend

        /// <summary>The last Weekend event polled (sessions, classes, offered cars,
        /// championship), or null before one.</summary>
        public Weekend GetWeekend()
        {
            RacesimWeekend w;
            if (Native.rs_flat_get_weekend(H, out w) != Status.Ok)
                return null;
            var sessions = new List<RacesimSessionDef>();
            RacesimSessionDef s;
            while (Native.rs_flat_get_weekend_session(H, sessions.Count, out s) != 0)
                sessions.Add(s);
            var classes = new List<string>();
            RacesimCarClass k;
            while (Native.rs_flat_get_car_class(H, classes.Count, out k) != 0)
                classes.Add(k.Name);
            var cars = new List<RacesimOfferedCar>();
            RacesimOfferedCar car;
            while (Native.rs_flat_get_offered_car(H, cars.Count, out car) != 0)
                cars.Add(car);
            return new Weekend(w.Weekend, w.Championship, sessions.ToArray(), classes.ToArray(),
                               cars.ToArray());
        }

        /// <summary>The running session (type, time left, chequered flag); false before the
        /// first RaceState.</summary>
        public bool GetSession(out RacesimSession session)
        {
            return Native.rs_flat_get_session(H, out session) == Status.Ok;
        }

        /// <summary>A car's driver, class, number and balance of performance; false when no
        /// CarInfo came for it.</summary>
        public bool GetCarInfo(int car, out RacesimCarInfo info)
        {
            return Native.rs_flat_get_car_info(H, car, out info) == Status.Ok;
        }

        /// <summary>The details of the last Penalty, Chat and Vote event polled: call them
        /// while handling that event (false before one).</summary>
        public bool GetPenalty(out RacesimPenalty penalty)
        {
            return Native.rs_flat_get_penalty(H, out penalty) == Status.Ok;
        }
        public bool GetChat(out RacesimChat chat) { return Native.rs_flat_get_chat(H, out chat) == Status.Ok; }
        public bool GetVote(out RacesimVote vote) { return Native.rs_flat_get_vote(H, out vote) == Status.Ok; }

        /// <summary>The rows of the last Standings event polled.</summary>
        public RacesimChampionshipRow[] GetChampionshipRows()
        {
            var list = new List<RacesimChampionshipRow>();
            RacesimChampionshipRow row;
            while (Native.rs_flat_get_championship_row(H, list.Count, out row) != 0)
                list.Add(row);
            return list.ToArray();
        }

        static void Sent(int status, string what)
        {
            if (status == Status.ErrArg)
                throw new ArgumentException("racesim: " + what + ": the server would refuse it");
            if (status != Status.Ok)
                throw new RacesimException("racesim: " + what + ": not connected");
        }

        /// <summary>A chat line to the room (to null or "") or privately to a player. Throws
        /// ArgumentException for a text the server would refuse (empty, over 200 bytes, control
        /// characters such as a newline), RacesimException when not connected. Lines arrive as
        /// Chat events, this one too.</summary>
        public void Chat(string text, string to = null)
        {
            if (text == null)
                throw new ArgumentNullException("text");
            Sent(Native.rs_client_chat(H, Native.Utf8(to ?? ""), Native.Utf8(text)), "chat");
        }

        /// <summary>A player's command (Command.*); returns the request id its CommandReply
        /// echoes. Errors as Chat.</summary>
        public uint SendCommand(int command, string arg = null)
        {
            if (command < 0 || command > byte.MaxValue)
                throw new ArgumentOutOfRangeException("command");
            uint id;
            Sent(Native.rs_client_command(H, (byte)command, Native.Utf8(arg ?? ""), out id), "command");
            return id;
        }

        /// <summary>Drive another offered car from the next session on, by its BaseHash or name.</summary>
        public uint SelectCar(ulong baseHash)
        {
            return SendCommand(Command.SelectCar, baseHash.ToString("x16", CultureInfo.InvariantCulture));
        }
        public uint SelectCar(string name) { return SendCommand(Command.SelectCar, name); }
        public uint Mute(string player) { return SendCommand(Command.Mute, player); }
        public uint Unmute(string player) { return SendCommand(Command.Unmute, player); }
        /// <summary>Answers the open vote.</summary>
        public uint Vote(bool yes) { return SendCommand(yes ? Command.VoteYes : Command.VoteNo); }

        /// <summary>A page of a championship's standings (null = the room's own), of one class
        /// (null = every driver); the Standings event with the returned id brings the rows
        /// (GetChampionshipRows).</summary>
        public uint RequestStandings(string championship = null, string className = null, uint offset = 0,
                                     byte count = 10)
        {
            uint id;
            Sent(Native.rs_client_standings_request(H, Native.Utf8(championship ?? ""),
                                                    Native.Utf8(className ?? ""), offset, count, out id),
                 "standings request");
            return id;
        }

        /// <summary>Connection statistics at the present time.</summary>
        public RacesimStats GetStats()
        {
            RacesimStats st;
            Native.rs_flat_get_stats(H, out st);
            return st;
        }

        /// <summary>The centre line at station s (wrapped); false without a world.</summary>
        public bool TrackSample(double s, out RacesimTrackPoint point)
        {
            return Native.rs_flat_track_sample(H, s, out point) == Status.Ok;
        }

        /// <summary>Where the point (x, y) lies relative to the centre line; false without a
        /// world or nowhere near the track.</summary>
        public bool TrackLocate(double x, double y, out RacesimTrackPoint point)
        {
            return Native.rs_flat_track_locate(H, x, y, out point) == Status.Ok;
        }

        /// <summary>Says goodbye (up to 100 ms) and frees the native client.</summary>
        public void Dispose()
        {
            Close();
            GC.SuppressFinalize(this);
        }

        ~RacesimClient()
        {
            Close();
        }

        void Close()
        {
            IntPtr h = handle;
            handle = IntPtr.Zero;
            if (h != IntPtr.Zero)
                Native.rs_flat_close(h);
        }
    }
}
