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
        public const int FlatVersion = 1;

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
