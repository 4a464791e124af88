// The timing tower: one row per car of the room's session, by position, from
// GET /api/v1/rooms/{name} (entries are already ordered by position), and the
// session line above it (the weekend's session, its flag, laps or time left).

import {el, clear, setText, lapTime, seconds, gap, driverName} from './util.js';
import {carColour} from './map.js';

// A colour per class, by its place in the room's classes (few rooms have
// more than eight).
const CLASS_COLOURS = ['#d9480f', '#1971c2', '#2f9e44', '#ae3ec9', '#f59f00', '#0c8599',
                       '#e64980', '#5c940d'];

export function classColour(classes, name) {
  const i = (classes || []).findIndex((c) => c.name === name);
  return i < 0 ? null : CLASS_COLOURS[i % CLASS_COLOURS.length];
}

function sectors(list) {
  if (!list || !list.length) return '—';
  return list.map((us) => seconds(us)).join(' · ');
}

// Time penalties and disqualifications in force (warnings have no effect).
function penalties(list) {
  return (list || []).filter((p) => !p.removed && p.kind !== 'warning')
    .map((p) => (p.kind === 'dsq' ? 'DSQ' : `+${p.seconds} s`)).join(', ');
}

// Its place in its class, with the class's colour; nothing without classes.
function classCell(e, classes) {
  if (e.class === null) return el('td', {class: 'num class-pos'});
  const chip = el('span', {class: 'class-chip'}, e.class);
  const colour = classColour(classes, e.class);
  if (colour) chip.style.background = colour; // CSSOM: allowed by the CSP, attributes are not
  return el('td', {class: 'num class-pos', title: `${e.class_position} in class ${e.class}`},
            chip, ` ${e.class_position}`);
}

export function renderTower(body, empty, entries, classes) {
  clear(body);
  empty.hidden = entries.length > 0;
  for (const e of entries) {
    const swatch = el('span', {class: 'swatch', 'aria-hidden': 'true'});
    swatch.style.background = carColour(e.car);
    const lastClass = e.last_lap_us !== null && !e.last_lap_valid ? 'num invalid' : 'num';
    const row = el('tr', {'data-car': e.car, class: e.connected ? '' : 'gone'},
      el('td', {class: 'num'}, e.position),
      classCell(e, classes),
      el('td', {class: 'num race-number'}, e.number === null ? '' : e.number),
      el('th', {scope: 'row', class: 'driver', title: e.car_model.name}, swatch, driverName(e.name),
         e.connected ? null : el('span', {class: 'tag'}, 'left'),
         e.finished ? el('span', {class: 'tag flag'}, 'finished') : null,
         e.status === 'disqualified' ? el('span', {class: 'tag dsq'}, 'DSQ') : null),
      el('td', {class: 'num'}, e.laps),
      el('td', {class: 'num'}, e.position === 1 ? 'Leader' : gap(e.gap_us, e.laps_behind)),
      el('td', {class: 'num'}, e.position === 1 ? '' : gap(e.interval_us, 0)),
      el('td', {class: lastClass, title: e.last_lap_valid ? null : 'invalid lap'},
         lapTime(e.last_lap_us)),
      el('td', {class: 'num best'}, lapTime(e.best_lap_us)),
      el('td', {class: 'num sectors'}, sectors(e.sectors_us)),
      el('td', {class: 'num'}, `${e.barrier_hits} / ${e.car_hits}`),
      el('td', {class: 'penalties'}, penalties(e.penalties)));
    if (e.finished) row.classList.add('finished');
    body.append(row);
  }
}

// The ticker under the tower: the last few feed events in words.
export function tick(list, text) {
  list.prepend(el('li', {}, text));
  while (list.children.length > 6) list.lastChild.remove();
}

const SESSION_NAMES = {practice: 'Practice', qualifying: 'Qualifying', warmup: 'Warm-up',
                       race: 'Race'};

export function sessionName(type) {
  return SESSION_NAMES[type] || type;
}

// m:ss of a time left in microseconds.
function clock(us) {
  const s = Math.ceil(us / 1e6);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

// How far the session is: the lap of the leader of so many, or the time left.
function progress(room, s) {
  if (s.time_limit_s !== null)
    return s.time_left_us === null ? `${clock(s.time_limit_s * 1e6)}` : `${clock(s.time_left_us)} left`;
  if (room.phase !== 'race') return `${s.laps} ${s.laps === 1 ? 'lap' : 'laps'}`;
  const lead = room.entries && room.entries.length ? room.entries[0].laps + 1 : 1;
  return `lap ${Math.min(s.laps, lead)} of ${s.laps}`;
}

export function sessionLine(node, room) {
  clear(node);
  if (!room) return;
  const s = room.session;
  const flag = el('span', {class: `flag-state flag-${s.flag}`, id: 'session-flag',
                           'data-flag': s.flag}, s.flag === 'none' ? '' : `${s.flag} flag`);
  const parts = [`${sessionName(s.type)} (${s.index + 1} of ${s.sessions.length}` +
                 `${s.weekend ? `, weekend ${s.weekend}` : ''})`, room.phase, progress(room, s)];
  if (room.phase === 'race') parts.push(lapTime(s.race_time_us));
  parts.push(room.track.name);
  node.append(el('span', {id: 'session-text', 'data-type': s.type}, `— ${parts.join(' · ')} `), flag);
  const legend = el('span', {class: 'class-legend'});
  for (const c of room.classes) {
    const chip = el('span', {class: 'class-chip', title: c.cars.map((x) => x.name).join(', ')}, c.name);
    chip.style.background = classColour(room.classes, c.name);
    legend.append(chip, ' ');
  }
  if (room.classes.length) node.append(' ', legend);
}
