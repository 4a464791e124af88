// The page's entry point: the room selector, the live timing tower and map
// (GET /api/v1/rooms/{name} once a second, the feed for positions and
// events), and the leaderboard, races and replay panels.

import {getJSON, query, enc} from './api.js';
import {el, clear, setText, lapTime, driverName, debug} from './util.js';
import {TrackMap, PoseBuffer} from './map.js';
import {renderTower, tick, sessionLine, sessionName} from './tower.js';
import {initBoards} from './boards.js';
import {initRaces} from './races.js';
import {initReplay} from './replay.js';

const $ = (id) => document.getElementById(id);

const live = {
  room: null,        // name of the selected room
  detail: null,      // its last GET /api/v1/rooms/{name}
  names: new Map(),  // car -> driver name, for labels and the ticker
  outlineHash: null,
  poses: new PoseBuffer(),
  feed: null,
  counts: {},        // feed events seen, by type
};
debug.live = live;

const map = new TrackMap($('live-map'));

async function refreshStatus() {
  try {
    const s = await getJSON('api/v1/status');
    const v = s.server;
    const up = v.uptime_s >= 3600 ? `${Math.floor(v.uptime_s / 3600)} h` : `${Math.floor(v.uptime_s / 60)} min`;
    setText($('server-line'), `raceserver ${v.version} · ${s.players} players · ${s.spectators} spectators · ${v.tick_hz} Hz · up ${up}`);
    fillRooms(s.rooms);
  } catch (e) {
    setText($('server-line'), `server unreachable: ${e.message}`);
  }
}

function fillRooms(rooms) {
  const select = $('room-select');
  const have = [...select.options].map((o) => o.value).join('\n');
  if (have !== rooms.map((r) => r.name).join('\n')) {
    clear(select);
    for (const r of rooms) select.append(el('option', {value: r.name}, r.name));
  }
  for (const [i, r] of rooms.entries()) // the label says who is racing where
    setText(select.options[i], `${r.name} — ${r.track.name}, ${r.phase}, ${r.players}/${r.max_players}`);
  const wanted = new URLSearchParams(location.hash.slice(1)).get('room');
  const pick = rooms.find((r) => r.name === (live.room || wanted)) || rooms[0];
  if (pick && pick.name !== live.room) selectRoom(pick.name);
  if (pick) select.value = pick.name;
}

function selectRoom(name) {
  live.room = name;
  live.detail = null;
  live.poses.clear();
  history.replaceState(null, '', `#room=${enc(name)}`);
  clear($('ticker'));
  openFeed(name);
  refreshRoom();
}

async function refreshRoom() {
  const name = live.room;
  if (!name) return;
  let room;
  try {
    room = await getJSON(`api/v1/rooms/${enc(name)}`);
  } catch (e) {
    if (e.status === 404) refreshStatus(); // the room went away: pick another
    return;
  }
  if (name !== live.room) return; // the selection changed meanwhile
  live.detail = room;
  live.names = new Map(room.entries.map((e) => [e.car, driverName(e.name)]));
  renderTower($('tower-body'), $('tower-empty'), room.entries, room.classes);
  sessionLine($('session-line'), room);
  boards.setClasses(room.classes);
  debug.tower = room.entries.map((e) => ({car: e.car, name: e.name, position: e.position, laps: e.laps,
                                          class: e.class, class_position: e.class_position}));
  debug.session = room.session;
  if (room.track.hash !== live.outlineHash) loadOutline(room.track);
  // Before the first feed sample (or in a quiet lobby) the poses of the room's snapshot.
  if (!live.poses.samples.length && room.entries.length)
    live.poses.push(performance.now(), room.entries.map((e) => [e.car, e.pose.x, e.pose.y, e.pose.heading, e.pose.speed]));
}

async function loadOutline(track) {
  live.outlineHash = track.hash;
  try {
    map.setOutline(await getJSON(`api/v1/tracks/${enc(track.hash)}/outline`));
    setText($('map-caption'), `${track.name}`);
  } catch (e) {
    live.outlineHash = null;
    setText($('map-caption'), `${track.name}: no outline (${e.message})`);
  }
}

function openFeed(name) {
  if (live.feed) live.feed.close();
  const feed = new EventSource(`api/v1/feed${query({room: name})}`);
  live.feed = feed;
  const on = (type, fn) => feed.addEventListener(type, (ev) => {
    live.counts[type] = (live.counts[type] || 0) + 1;
    let data = null;
    try { data = JSON.parse(ev.data); } catch (e) { return; }
    if (data.room && data.room !== live.room) return;
    fn(data);
  });
  const who = (car) => live.names.get(car) || `car ${car}`;
  on('positions', (d) => {
    live.poses.push(performance.now(), d.cars);
    debug.positions = {tick: d.tick, cars: d.cars.map((c) => ({car: c[0], x: c[1], y: c[2]}))};
  });
  on('lap', (d) => {
    tick($('ticker'), `${who(d.car)}: lap ${d.lap} in ${lapTime(d.lap_us)}${d.valid ? '' : ' (invalid)'}`);
    refreshRoom();
    boards.lapRecorded();
  });
  on('lap_invalid', (d) => tick($('ticker'), `${who(d.car)}: lap ${d.lap} invalidated`));
  on('finish', (d) => {
    tick($('ticker'), `${who(d.car)} finishes P${d.position} in ${lapTime(d.race_time_us)}`);
    refreshRoom();
  });
  on('hit', (d) => {
    const what = d.barrier ? 'the barrier' : who(d.other);
    tick($('ticker'), `${who(d.car)} hits ${what} at ${Math.round(d.speed * 3.6)} km/h`);
  });
  on('phase', (d) => {
    tick($('ticker'), `race ${d.race_number}: ${d.phase}`);
    live.poses.clear(); // a new grid: do not glide from the old places
    refreshRoom();
    if (d.phase === 'results' || d.phase === 'race') races.refresh();
  });
  on('session', (d) => {
    tick($('ticker'), d.flag === 'chequered' ? `${sessionName(d.type)}: the chequered flag`
                                             : `${sessionName(d.type)} begins (weekend ${d.weekend})`);
    refreshRoom();
  });
  on('resync', () => { live.poses.clear(); refreshRoom(); });
  feed.onerror = () => setText($('map-caption'), 'live feed: reconnecting…');
  feed.onopen = () => live.outlineHash && live.detail && setText($('map-caption'), live.detail.track.name);
}

function frame() {
  if (!document.hidden) {
    const cars = live.poses.at(performance.now());
    map.setCars(cars.map((c) => ({...c, label: live.names.get(c.car) || String(c.car)})));
    map.message = live.outlineHash ? '' : 'waiting for the track…';
    map.draw();
    debug.drawn = cars.map((c) => ({car: c.car, x: c.x, y: c.y}));
  }
  requestAnimationFrame(frame);
}

$('room-select').addEventListener('change', (ev) => selectRoom(ev.target.value));
$('room-form').addEventListener('submit', (ev) => ev.preventDefault());

const replay = initReplay();
const boards = initBoards({onReplay: (row) => replay.play(row), replayAvailable: replay.available});
replay.ready.then(() => boards.rerender()); // the buttons say whether replay works
const races = initRaces();

refreshStatus();
setInterval(refreshStatus, 10000);
setInterval(refreshRoom, 1000);
requestAnimationFrame(frame);
debug.ready = true;
