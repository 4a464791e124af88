// Recent sessions (GET /api/v1/races: practices, qualifyings, warm-ups and
// races) and the classification of the one picked (GET /api/v1/races/{id}):
// class positions, statuses, penalties, laps led and the fastest lap.

import {getJSON, query} from './api.js';
import {el, clear, setText, lapTime, driverName, unixDate, debug} from './util.js';
import {sessionName} from './tower.js';

// A stored row's place: its position, DSQ or, in a race, DNF.
function place(r, isRace) {
  if (r.status === 'disqualified') return 'DSQ';
  if (r.status === 'not_classified') return isRace ? 'DNF' : 'NC';
  return r.position;
}

function penalty(ms) {
  return ms ? `+${(ms / 1000).toFixed(ms % 1000 ? 3 : 0)} s` : '';
}

const $ = (id) => document.getElementById(id);

export function initRaces() {
  const state = {races: [], shown: null};
  debug.races = state;

  async function refresh() {
    try {
      state.races = (await getJSON(`api/v1/races${query({limit: 15})}`)).races;
    } catch (e) {
      state.races = [];
    }
    const body = $('race-body');
    clear(body);
    for (const r of state.races) {
      const button = el('button', {type: 'button', 'aria-label': `Results of race ${r.id}`}, 'Results');
      button.addEventListener('click', () => show(r.id));
      const sess = r.session;
      body.append(el('tr', {'data-race': r.id, 'data-session': sess.type},
        el('td', {class: 'num'}, r.id),
        el('td', {class: 'session-type'}, sessionName(sess.type),
           sess.room ? el('span', {class: 'tag'}, `${sess.room}, weekend ${sess.weekend}`) : null),
        el('th', {scope: 'row'}, r.track.name),
        el('td', {class: 'num'}, r.laps),
        el('td', {class: 'num'}, r.entries),
        el('td', {class: `status ${r.status}`}, r.status),
        el('td', {}, unixDate(r.started_at)),
        el('td', {}, button)));
    }
    if (!state.races.length)
      body.append(el('tr', {}, el('td', {colspan: 8, class: 'empty'}, 'No races recorded yet.')));
  }

  async function show(id) {
    let race;
    try {
      race = await getJSON(`api/v1/races/${id}`);
    } catch (e) {
      return;
    }
    state.shown = race;
    $('race-results').hidden = false;
    const sess = race.session;
    const length = race.laps ? `${race.laps} ${race.laps === 1 ? 'lap' : 'laps'}` : 'timed';
    setText($('race-results-title'),
            `${sessionName(sess.type)} ${race.id}: ${race.track.name}, ${length} (${race.status})`);
    const isRace = sess.type === 'race';
    const body = $('results-body');
    clear(body);
    for (const r of race.results) {
      body.append(el('tr', {class: `result-${r.status}`},
        el('td', {class: 'num'}, place(r, isRace)),
        el('td', {class: 'num class-pos'}, r.class === null ? '' : `${r.class} ${r.class_position}`),
        el('td', {class: 'num race-number'}, r.number === null ? '' : r.number),
        el('th', {scope: 'row', class: 'driver'}, driverName(r.player)),
        el('td', {}, r.car),
        el('td', {class: 'num'}, r.laps),
        el('td', {class: 'num'}, lapTime(r.finish_us)),
        el('td', {class: r.fastest_lap ? 'num best fastest' : 'num best',
                  title: r.fastest_lap ? 'the fastest lap' : null},
           lapTime(r.best_lap_us), r.fastest_lap ? ' ★' : ''),
        el('td', {class: 'num'}, r.laps_led),
        el('td', {class: 'num'}, `${r.barrier_hits} / ${r.car_hits}`),
        el('td', {class: 'num penalty'}, penalty(r.penalty_ms))));
    }
  }

  refresh();
  setInterval(refresh, 30000);
  return {refresh};
}
