// The lap replay panel: a leaderboard lap re-simulated in the browser from
// its stored proof (the inputs of every car), drawn on a track map at real
// speed, and called "verified" only when the re-simulation's lap time and
// end-of-lap state hash equal the stored record's and its verdict is ok.

import {getJSON, getText, getBytes, enc} from './api.js';
import {el, clear, setText, lapTime, driverName, debug} from './util.js';
import {TrackMap, outlineFromTrack} from './map.js';

// ----------------------------------------------------------------- adapter
// The one place that knows the replay module (web/wasm/ compiled physics,
// wrapped by web/js/replay_wasm.js as window.RacesimReplay). Resolves to
// null when the module is not there, else to {open(trackText, carBlocks,
// proof)} giving a replay: {tickCount, tickHz, lapCar (1-based), done,
// step(n), poses() -> [{x, y, heading, speed}] per car, result() ->
// {ok, verdict, message, time_us, end_hash (16 hex)}, free()}.
const ENGINE_SCRIPTS = ['wasm/racesim_replay.js', 'js/replay_wasm.js'];

async function replayEngine() {
  if (!window.RacesimReplay) {
    // Asked first: a <script> of a missing file would get the server's JSON
    // 404, which the browser reports as a refused script.
    const probe = await fetch(ENGINE_SCRIPTS[0], {method: 'HEAD'}).catch(() => null);
    if (!probe || !probe.ok) return null;
  }
  for (const src of ENGINE_SCRIPTS) {
    if (window.RacesimReplay) break; // already on the page (or a test's stand-in)
    const ok = await new Promise((resolve) => {
      const s = el('script', {src});
      s.onload = () => resolve(true);
      s.onerror = () => resolve(false); // absent: this server was built without it
      document.head.append(s);
    });
    if (!ok) break;
  }
  const R = window.RacesimReplay;
  if (!R || typeof R.load !== 'function') return null;
  return {
    async open(trackText, carBlocks, proof) {
      const r = await R.load(trackText, carBlocks, proof,
                             {moduleArgs: {locateFile: (f) => `wasm/${f}`}});
      const info = r.info || {};
      return {
        tickCount: r.tickCount ?? info.tick_count,
        tickHz: info.tick_hz || 60,
        lapCar: r.lapCar ?? info.car ?? 1,
        get done() { return r.done; },
        step: (n) => r.step(n),
        poses: () => r.poses(),
        result() {
          const x = r.result();
          const sim = x.simulated || {};
          return {ok: x.ok ?? x.code === 0, verdict: x.verdict ?? String(x.code),
                  message: x.message || '', time_us: sim.time_us ?? null,
                  end_hash: sim.end_hash ?? null};
        },
        free: () => r.free && r.free(),
      };
    },
  };
}
// ---------------------------------------------------------- end of adapter

const $ = (id) => document.getElementById(id);

// The stored record against what the browser computed: [] when they agree.
export function differences(lap, res) {
  const why = [];
  if (!res.ok) why.push(`re-simulation verdict: ${res.verdict}${res.message ? ` (${res.message})` : ''}`);
  if (res.time_us === null || Number(res.time_us) !== Number(lap.time_us))
    why.push(`lap time: stored ${lapTime(lap.time_us)} (${lap.time_us} µs), computed ${res.time_us === null ? 'none' : `${lapTime(res.time_us)} (${res.time_us} µs)`}`);
  if (!res.end_hash || String(res.end_hash).toLowerCase() !== String(lap.end_hash).toLowerCase())
    why.push(`end hash: stored ${lap.end_hash}, computed ${res.end_hash || 'none'}`);
  return why;
}

export function initReplay() {
  const map = new TrackMap($('replay-map'));
  map.message = 'No lap replayed yet';
  map.draw();
  const state = {available: null, state: 'idle', lap_id: null, tick: 0, ticks: 0, reasons: [], run: 0};
  debug.replay = state;
  let engine = null;

  const ready = replayEngine().then((e) => {
    engine = e;
    state.available = !!e;
    if (!e) setText($('replay-what'), 'Replay unavailable: this server has no WebAssembly replay module (web/wasm).');
    return state.available;
  }, () => (state.available = false));

  function verdict(kind, text, reasons = []) {
    state.state = kind;
    state.reasons = reasons;
    const v = $('replay-verdict');
    v.dataset.state = kind;
    setText(v, text);
    const list = $('replay-reasons');
    clear(list);
    for (const r of reasons) list.append(el('li', {}, r));
  }

  async function play(row) {
    if (!engine) return;
    const run = ++state.run; // a newer play() stops this one
    state.lap_id = row.lap_id;
    state.tick = 0;
    $('replay').scrollIntoView({behavior: 'smooth', block: 'start'});
    verdict('loading', `Loading lap ${row.lap_id}…`);
    setText($('replay-what'), `${driverName(row.player)}: ${lapTime(row.time_us)} (rank ${row.rank})`);
    let lap, replay;
    try {
      lap = await getJSON(`api/v1/laps/${row.lap_id}`);
      if (!lap.proof) return verdict('no-proof', 'Cannot verify: no proof was kept for this lap.');
      setText($('replay-what'), `${driverName(lap.player)}, lap ${lap.lap}: ${lapTime(lap.time_us)} on ${lap.track.name} in the ${lap.car.name}`);
      const trackHash = lap.proof.track_hash || lap.track.hash;
      const blocks = [...new Set(lap.proof.cars)];
      const [proof, cars, trackText] = await Promise.all([
        getBytes(`api/v1/laps/${row.lap_id}/proof`),
        Promise.all(blocks.map((h) => getBytes(`api/v1/cars/${enc(h)}/block`))),
        getText(`api/v1/tracks/${enc(trackHash)}`)]);
      let outline = null;
      try { outline = await getJSON(`api/v1/tracks/${enc(trackHash)}/outline`); } catch (e) {
        try { outline = outlineFromTrack(JSON.parse(trackText)); } catch (e2) { /* drawn without */ }
      }
      if (run !== state.run) return;
      map.message = '';
      map.setOutline(outline);
      map.trail = [];
      replay = await engine.open(trackText, cars, proof);
    } catch (e) {
      if (run !== state.run) return;
      return verdict('not-verified', 'NOT verified: the lap could not be re-simulated.', [e.message]);
    }
    animate(run, lap, replay);
  }

  function animate(run, lap, replay) {
    state.ticks = replay.tickCount || 1;
    const progress = $('replay-progress');
    progress.max = state.ticks;
    verdict('running', 'Re-simulating…');
    let last = performance.now(), owed = 0;
    const frame = (now) => {
      if (run !== state.run) return replay.free();
      // Real speed: as many ticks as the time since the last frame is worth.
      owed += ((now - last) / 1000) * replay.tickHz * Number($('replay-speed').value);
      last = now;
      const n = Math.min(Math.floor(owed), 4 * replay.tickHz);
      owed -= n;
      if (n > 0) state.tick += replay.step(n);
      const poses = replay.poses();
      const mine = poses[replay.lapCar - 1];
      if (mine) map.trail.push([mine.x, mine.y]);
      map.fitPoints(map.trail);
      map.setCars(poses.map((p, i) => ({...p, car: i + 1, focus: i + 1 === replay.lapCar,
                                        label: i + 1 === replay.lapCar ? driverName(lap.player) : ''})));
      map.draw();
      progress.value = Math.min(state.tick, state.ticks);
      setText($('replay-clock'), lapTime((state.tick / replay.tickHz) * 1e6));
      if (!replay.done) return requestAnimationFrame(frame);
      finish(lap, replay);
    };
    requestAnimationFrame(frame);
  }

  function finish(lap, replay) {
    let res;
    try {
      res = replay.result();
    } catch (e) {
      res = {ok: false, verdict: 'error', message: e.message, time_us: null, end_hash: null};
    }
    replay.free();
    state.computed = res;
    $('replay-progress').value = state.ticks;
    const why = differences(lap, res);
    if (!why.length)
      verdict('verified', `Verified: ${lapTime(res.time_us)}, end hash ${res.end_hash}, as stored.`);
    else
      verdict('not-verified', 'NOT verified: the re-simulation differs from the record.', why);
  }

  return {play, ready, available: () => state.available === true};
}
