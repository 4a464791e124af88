// Recent races (GET /api/v1/races) and the results of the one picked
// (GET /api/v1/races/{id}).

import {getJSON, query} from './api.js';
import {el, clear, setText, lapTime, driverName, unixDate, debug} from './util.js';

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
      body.append(el('tr', {'data-race': r.id},
        el('td', {class: 'num'}, r.id),
        el('th', {scope: 'row'}, r.track.name),
        el('td', {class: 'num'}, r.laps),
        el('td', {class: 'num'}, r.entries),
        el('td', {class: `status ${r.status}`}, r.status),
        el('td', {}, unixDate(r.started_at)),
        el('td', {}, button)));
    }
    if (!state.races.length)
      body.append(el('tr', {}, el('td', {colspan: 7, class: 'empty'}, 'No races recorded yet.')));
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
    setText($('race-results-title'), `Race ${race.id}: ${race.track.name}, ${race.laps} laps (${race.status})`);
    const body = $('results-body');
    clear(body);
    for (const r of race.results) {
      body.append(el('tr', {},
        el('td', {class: 'num'}, r.finished ? r.position : 'DNF'),
        el('th', {scope: 'row', class: 'driver'}, driverName(r.player)),
        el('td', {}, r.car),
        el('td', {class: 'num'}, r.laps),
        el('td', {class: 'num'}, lapTime(r.finish_us)),
        el('td', {class: 'num best'}, lapTime(r.best_lap_us)),
        el('td', {class: 'num'}, `${r.barrier_hits} / ${r.car_hits}`),
        el('td', {}, (r.penalties || []).length ? r.penalties.join(', ') : '')));
    }
  }

  refresh();
  setInterval(refresh, 30000);
  return {refresh};
}
