// RaceClient: a console racesim client on the C# binding (Racesim.cs). It connects,
// drives with examples/minimal.c's driver (steer towards the centre line 25 m ahead,
// hold the speed the corner 60 m ahead allows), prints its laps, FINISH and the results,
// and what the race weekend brings: the room's sessions and cars, chat, penalties, votes.
//
//   mono RaceClient.exe [HOST [PORT [SECONDS [NAME]]]]   (default 127.0.0.1 27960 90 csharp)
//
// Exit status 0 once the race's RESULTS arrive; 1 when refused, disconnected, or
// SECONDS pass first; 2 for bad arguments.

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Threading;
using Racesim;

static class RaceClient
{
    static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    static string Seconds(long us)
    {
        return (us / 1e6).ToString("F3", Inv);
    }

    // Throttle, brake and steering for the car at pose p: examples/minimal.c's drive().
    static void Drive(RacesimClient client, RacesimPose p, out double steer, out double throttle,
                      out double brake)
    {
        RacesimTrackPoint at, aim, bend;
        if (!client.TrackLocate(p.X, p.Y, out at) || !client.TrackSample(at.S + 25.0, out aim) ||
            !client.TrackSample(at.S + 60.0, out bend))
        {
            steer = 0.0; throttle = 0.0; brake = 1.0; // lost: stop
            return;
        }
        // The car's heading from its orientation (w, x, y, z), and the side the aim
        // point lies on: the cross product, per metre of distance.
        double fx = 1.0 - 2.0 * (p.QuatY * p.QuatY + p.QuatZ * p.QuatZ);
        double fy = 2.0 * (p.QuatX * p.QuatY + p.QuatW * p.QuatZ);
        double dx = aim.X - p.X, dy = aim.Y - p.Y;
        steer = Math.Max(-1.0, Math.Min(1.0, 2.0 * (fx * dy - fy * dx) / (25.0 + 1e-9)));
        // A corner of curvature k allows v^2 = a / k with a lateral grip a.
        double v2 = p.Speed * p.Speed;
        double k = Math.Abs(bend.Curvature);
        double allowed = k > 1e-4 ? 8.0 / k : 1e9;
        if (v2 > 1.2 * allowed)
        {
            throttle = 0.0; brake = 0.6;
        }
        else
        {
            throttle = v2 < allowed ? 0.8 : 0.2; brake = 0.0;
        }
    }

    // The room's weekend: its sessions in order and the cars it offers (a game would let the
    // player pick one: the "car_hash" option of Connect, or client.SelectCar).
    static void PrintWeekend(Weekend wk)
    {
        if (wk == null)
            return;
        var sessions = new List<string>();
        foreach (var s in wk.Sessions)
            sessions.Add(s.Laps > 0 ? string.Format(Inv, "type {0}: {1} laps", s.Type, s.Laps)
                                    : string.Format(Inv, "type {0}: {1} s", s.Type, s.TimeLimitS));
        Console.WriteLine("weekend {0}: {1}{2}", wk.Number, string.Join("; ", sessions.ToArray()),
                          wk.Championship.Length > 0 ? ", championship " + wk.Championship : "");
        foreach (var car in wk.Cars)
            Console.WriteLine("  car {0:x16}: {1}{2}", car.BaseHash, car.Name,
                              car.ClassName.Length > 0 ? " (" + car.ClassName + ")" : "");
    }

    static int Main(string[] args)
    {
        string host = args.Length > 0 ? args[0] : "127.0.0.1";
        int port = 27960, seconds = 90;
        if ((args.Length > 1 && !int.TryParse(args[1], NumberStyles.Integer, Inv, out port)) ||
            (args.Length > 2 && !int.TryParse(args[2], NumberStyles.Integer, Inv, out seconds)))
        {
            Console.Error.WriteLine("usage: RaceClient.exe [HOST [PORT [SECONDS [NAME]]]]");
            return 2;
        }
        string name = args.Length > 3 ? args[3] : "csharp";

        RacesimClient client;
        try
        {
            // Options by rs_client_config field name: give up connecting within the time limit.
            var options = new Dictionary<string, object> { { "connect_timeout_ms", Math.Min(seconds, 15) * 1000 } };
            client = RacesimClient.Connect(host, port, name, null, options);
        }
        catch (RacesimException e)
        {
            Console.Error.WriteLine(e.Message);
            return 1;
        }
        using (client)
        {
            int status = -1;
            var clock = Stopwatch.StartNew();
            double nextHud = 10.0;
            while (status < 0)
            {
                // The controls for the coming ticks, from where the car is now.
                int car = client.Car;
                RacesimPose pose;
                if (car != 0 && client.GetPose(car, out pose))
                {
                    double steer, throttle, brake;
                    Drive(client, pose, out steer, out throttle, out brake);
                    client.SetControls(steer, throttle, brake);
                }
                client.Update();
                foreach (var ev in client.Events())
                {
                    switch (ev.Type)
                    {
                    case EventType.Connected:
                        Console.WriteLine("connected: {0}, {1} Hz", ev.Flags != 0 ? "spectator" : "player",
                                          ev.Value.ToString("F0", Inv));
                        break;
                    case EventType.WorldReady:
                        Console.WriteLine("world ready: car {0} of {1}, track {2} m", ev.Car, ev.Count,
                                          client.TrackLength.ToString("F0", Inv));
                        break;
                    case EventType.RaceState:
                        Console.WriteLine("race {0} phase {1}, {2} laps", ev.RaceNumber, ev.Code, ev.Count);
                        break;
                    case EventType.Lap:
                        if (ev.Car == client.Car)
                            Console.WriteLine("lap {0}: {1} s{2}", ev.Lap, Seconds(ev.TimeUs),
                                              ev.Valid != 0 ? "" : " (invalid)");
                        else
                            Console.WriteLine("car {0} lap {1}: {2} s", ev.Car, ev.Lap, Seconds(ev.TimeUs));
                        break;
                    case EventType.Finish:
                        Console.WriteLine("FINISH: position {0} after {1} laps, last lap {2} s",
                                          ev.Position, ev.Lap, Seconds(ev.TimeUs));
                        break;
                    case EventType.Results:
                        Console.WriteLine("RESULTS: race {0}, {1} cars", ev.RaceNumber, ev.Count);
                        foreach (var row in client.GetResults())
                            Console.WriteLine("  {0}. car {1}: {2} laps, {3}, best lap {4}", row.Position,
                                              row.Car, row.Laps,
                                              row.Finished != 0 ? "finished at " + Seconds(row.FinishUs) + " s"
                                                                : "did not finish",
                                              row.BestLapUs >= 0 ? Seconds(row.BestLapUs) + " s" : "none");
                        status = 0;
                        break;
                    case EventType.Weekend:
                        PrintWeekend(client.GetWeekend());
                        break;
                    case EventType.Chat:
                        RacesimChat chat;
                        if (client.GetChat(out chat))
                            Console.WriteLine("chat{0} {1}: {2}", chat.IsPrivate != 0 ? " (private)" : "",
                                              chat.From.Length > 0 ? chat.From : "server", chat.Text);
                        break;
                    case EventType.Penalty:
                        RacesimPenalty pen;
                        if (client.GetPenalty(out pen))
                            Console.WriteLine("penalty {0}{1} for car {2}: kind {3}, {4} s: {5}", pen.Id,
                                              pen.Removed != 0 ? " taken back" : "", pen.Car, pen.Kind,
                                              pen.Seconds, pen.Text);
                        break;
                    case EventType.Vote:
                        RacesimVote vote;
                        if (client.GetVote(out vote))
                            Console.WriteLine("vote {0} (kind {1}) by {2}: state {3}, {4} yes of {5} needed",
                                              vote.Id, vote.Kind, vote.By, vote.State, vote.Yes, vote.Needed);
                        break;
                    case EventType.Error:
                        Console.WriteLine("error {0}: {1}", ev.Code, ev.Text);
                        break;
                    case EventType.Refused:
                        Console.WriteLine("refused ({0}): {1}", Reason.Name(ev.Code), ev.Text);
                        status = 1;
                        break;
                    case EventType.Disconnected:
                        Console.WriteLine("disconnected ({0}): {1}", Reason.Name(ev.Code), ev.Text);
                        if (status < 0)
                            status = 1;
                        break;
                    }
                }
                // What a HUD would show, every 10 s of the race.
                RacesimCar hudCar = client.GetCar();
                if (hudCar.Car != 0 && hudCar.RaceTimeUs >= nextHud * 1e6 && status < 0)
                {
                    RacesimStanding[] order = client.GetStandings();
                    RacesimSession session;
                    string left = client.GetSession(out session) && session.TimeLeftMs >= 0
                                      ? ", " + Seconds(session.TimeLeftMs * 1000) + " s left" : "";
                    Console.WriteLine("hud: lap {0}/{1}, P{2} of {3}, {4} m/s, gear {5}, {6} rpm, lap time {7} s{8}",
                                      hudCar.Lap, hudCar.Laps, hudCar.Position, order.Length,
                                      hudCar.Speed.ToString("F1", Inv), hudCar.Gear,
                                      hudCar.EngineRpm.ToString("F0", Inv), Seconds(hudCar.LapTimeUs), left);
                    nextHud += 10.0;
                }
                if (status < 0 && clock.Elapsed.TotalSeconds > seconds)
                {
                    RacesimCar hud = client.GetCar();
                    Console.WriteLine("timeout after {0} s: state {1}, car {2} on lap {3}, {4} m/s", seconds,
                                      client.State, hud.Car, hud.Lap, hud.Speed.ToString("F1", Inv));
                    status = 1;
                }
                if (status < 0)
                    Thread.Sleep(1); // ticks are 16.7 ms apart
            }
            RacesimStats st = client.GetStats();
            Console.WriteLine("rtt {0} ms, rollbacks {1}, desyncs {2}, {3} B in, {4} B out on the wire",
                              st.RttMs.ToString("F1", Inv), st.Rollbacks, st.Desyncs, st.WireBytesIn,
                              st.WireBytesOut);
            return status;
        }
    }
}
