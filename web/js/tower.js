// The timing tower: one row per car of the room's race, by position, from
// GET /api/v1/rooms/{name} (entries are already ordered by position).

import {el, clear, setText, lapTime, seconds, gap, driverName} from './util.js';
import {carColour} from './map.js';

function sectors(list) {
  if (!list || !list.length) return '—';
  return list.map((us) => seconds(us)).join(' · ');
}

function penalties(list) {
  // Penalties are not given yet (always []); ready for when they are.
  if (!list || !list.length) return '';
  return list.map((p) => (typeof p === 'string' ? p : p.reason || p.type || JSON.stringify(p)))
    .join(', ');
}

export function renderTower(body, empty, entries) {
  clear(body);
  empty.hidden = entries.length > 0;
  for (const e of entries) {
    const swatch = el('span', {class: 'swatch', 'aria-hidden': 'true'});
    swatch.style.background = carColour(e.car); // CSSOM: allowed by the CSP, attributes are not
    const lastClass = e.last_lap_us !== null && !e.last_lap_valid ? 'num invalid' : 'num';
    const row = el('tr', {'data-car': e.car, class: e.connected ? '' : 'gone'},
      el('td', {class: 'num'}, e.position),
      el('th', {scope: 'row', class: 'driver'}, swatch, driverName(e.name),
         e.connected ? null : el('span', {class: 'tag'}, 'left'),
         e.finished ? el('span', {class: 'tag flag'}, 'finished') : null),
      el('td', {class: 'num'}, e.laps),
      el('td', {class: 'num'}, e.position === 1 ? 'Leader' : gap(e.gap_us, e.laps_behind)),
      el('td', {class: 'num'}, e.position === 1 ? '' : gap(e.interval_us, 0)),
      el('td', {class: lastClass, title: e.last_lap_valid ? null : 'invalid lap'},
         lapTime(e.last_lap_us)),
      el('td', {class: 'num best'}, lapTime(e.best_lap_us)),
      el('td', {class: 'num sectors'}, sectors(e.sectors_us)),
      el('td', {class: 'num'}, `${e.barrier_hits} / ${e.car_hits}`),
      el('td', {}, penalties(e.penalties)));
    if (e.finished) row.classList.add('finished');
    body.append(row);
  }
}

// The ticker under the tower: the last few feed events in words.
export function tick(list, text) {
  list.prepend(el('li', {}, text));
  while (list.children.length > 6) list.lastChild.remove();
}

export function sessionLine(node, room) {
  if (!room) return setText(node, '');
  const s = room.session || {};
  const lap = room.entries && room.entries.length ? Math.min(room.laps, room.entries[0].laps + 1) : 0;
  const parts = [room.phase, `race ${room.race_number}`, `${room.track.name}`, `${room.car.name}`];
  if (room.phase === 'race') parts.push(`lap ${lap} of ${room.laps}`, lapTime(s.race_time_us));
  else parts.push(`${room.laps} ${room.laps === 1 ? 'lap' : 'laps'}`);
  setText(node, `— ${parts.join(' · ')}`);
}
