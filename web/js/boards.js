// Leaderboards: one per track and car (GET /api/v1/boards lists those with
// stored laps), paged (GET /api/v1/leaderboard), and a driver's rank with the
// rows around it (GET /api/v1/leaderboard/rank). Each row can be replayed.
// A class is a set of cars in the selected room's configuration, not a
// stored thing: the car list groups the boards' cars by the room's classes
// (GET /api/v1/rooms/{name}: classes with their cars' hashes), and each
// group begins with the class's board: its cars' boards merged (car= once
// per car), each row naming the car it was driven in.

import {getJSON, query} from './api.js';
import {el, clear, setText, lapTime, seconds, driverName, unixDate, debug} from './util.js';

const $ = (id) => document.getElementById(id);
const PER_PAGE = 20;

export function initBoards({onReplay, replayAvailable}) {
  const state = {boards: null, classes: [], page: 1, pages: 1, rank: null, rows: [], timer: 0};
  debug.boards = state;
  const track = $('board-track'), car = $('board-car'), tune = $('board-tune');

  function fillSelect(select, list) {
    const old = select.value;
    clear(select);
    for (const d of list) select.append(el('option', {value: d.hash}, d.name));
    if (list.some((d) => d.hash === old)) select.value = old;
  }

  // The cars with boards, one group per class of the room (in its order),
  // then the cars of no class of it.
  function fillCars(list) {
    if (!state.classes.length) return fillSelect(car, list);
    const old = car.value;
    clear(car);
    const placed = new Set();
    for (const c of state.classes) {
      const group = el('optgroup', {label: c.name, 'data-class': c.name});
      group.append(el('option', {value: `class:${c.name}`, 'data-class': c.name},
                      `All ${c.name} cars`));
      for (const x of c.cars) {
        const d = list.find((b) => b.hash === x.hash);
        if (!d || placed.has(d.hash)) continue;
        placed.add(d.hash);
        group.append(el('option', {value: d.hash, 'data-class': c.name}, d.name));
      }
      if (group.children.length > 1) car.append(group);
    }
    const rest = list.filter((d) => !placed.has(d.hash));
    if (rest.length) {
      const group = el('optgroup', {label: 'Other cars'});
      for (const d of rest) group.append(el('option', {value: d.hash}, d.name));
      car.append(group);
    }
    if (list.some((d) => d.hash === old) || [...car.options].some((o) => o.value === old))
      car.value = old;
  }

  // The cars of the selected board: a class's cars that have boards, or one.
  function selectedCars() {
    if (!car.value.startsWith('class:')) return car.value;
    const cls = state.classes.find((c) => `class:${c.name}` === car.value);
    const stored = new Set(((state.boards && state.boards.cars) || []).map((d) => d.hash));
    return cls ? cls.cars.map((x) => x.hash).filter((h) => stored.has(h)) : [];
  }

  async function loadBoards() {
    try {
      state.boards = await getJSON('api/v1/boards');
    } catch (e) {
      return note(e.code === 'no_database' ? 'This server keeps no database: no leaderboards.'
                                            : `Leaderboards unavailable: ${e.message}`);
    }
    fillSelect(track, state.boards.tracks);
    fillCars(state.boards.cars);
    if (!state.boards.tracks.length) return note('No laps recorded yet.');
    if (!state.rank) await loadPage();
  }

  function note(text) { setText($('board-note'), text); }

  function args() {
    return {track: track.value, car: selectedCars(), tune: tune.value};
  }

  // "Chevrolet Corvette C5 (class GT)", or "class GT" for a class's board.
  function boardName(b) {
    if (car.value.startsWith('class:')) return `class ${car.value.slice(6)}`;
    const cls = state.classes.find((c) => c.cars.some((x) => x.hash === b.car.hash));
    return cls ? `${b.car.name} (class ${cls.name})` : b.car.name;
  }

  async function loadPage() {
    if (!track.value || !car.value) return;
    state.rank = null;
    try {
      const b = await getJSON(`api/v1/leaderboard${query({...args(), page: state.page, per_page: PER_PAGE})}`);
      state.pages = b.pages;
      state.page = Math.min(b.page, b.pages);
      const carName = boardName(b);
      note(b.total ? `${b.track.name}, ${carName}: ${b.total} ${b.total === 1 ? 'driver' : 'drivers'} (${b.tune} tune, physics ${b.physics_version}).`
                   : `${b.track.name}, ${carName}: no laps stored yet.`);
      render(b.rows, null, b.cars.length > 1 || car.value.startsWith('class:'));
    } catch (e) {
      note(e.status === 404 ? 'No laps on this combination yet.' : `Leaderboard unavailable: ${e.message}`);
      render([], null);
    }
  }

  async function findRank(name) {
    const tryName = (player) => getJSON(`api/v1/leaderboard/rank${query({...args(), player, around: 5})}`);
    try {
      let r;
      try {
        r = await tryName(name);
      } catch (e) {
        // Guests' laps are kept under "~name": look there too.
        if (e.code !== 'no_such_player' || name.startsWith('~')) throw e;
        r = await tryName(`~${name}`);
      }
      state.rank = r;
      note(`${driverName(r.player)} is ranked ${r.rank} on ${r.track.name}, ${boardName(r)}.`);
      render(r.rows, r.player_id, r.cars.length > 1 || car.value.startsWith('class:'));
    } catch (e) {
      const why = {no_such_player: `No driver is named “${name}”.`,
                   not_on_board: `${name} has no lap on this board.`}[e.code];
      note(why || `Rank unavailable: ${e.message}`);
    }
  }

  // withCar: a class's board (or one of several cars): each driver's cell
  // names the car of their lap.
  function render(rows, focusId, withCar) {
    state.rows = rows;
    state.withCar = withCar;
    const body = $('board-body');
    clear(body);
    const canReplay = replayAvailable();
    for (const r of rows) {
      const button = el('button', {type: 'button', class: 'replay-button', 'data-lap': r.lap_id,
                                   disabled: !canReplay,
                                   'aria-label': `Replay the lap of ${driverName(r.player)}, rank ${r.rank}`},
                        canReplay ? 'Replay' : 'replay unavailable');
      button.addEventListener('click', () => onReplay(r));
      body.append(el('tr', {'data-lap': r.lap_id, class: r.player_id === focusId ? 'focus' : ''},
        el('td', {class: 'num'}, r.rank),
        el('th', {scope: 'row', class: 'driver'}, driverName(r.player),
           withCar ? el('span', {class: 'row-car'}, r.car.name) : null),
        el('td', {class: 'num best'}, lapTime(r.time_us)),
        el('td', {class: 'num sectors'}, (r.sectors_us || []).map(seconds).join(' · ')),
        el('td', {}, r.tune === 'stock' ? 'stock' : String(r.tune).slice(0, 8)),
        el('td', {}, unixDate(r.recorded_at)),
        el('td', {}, button)));
    }
    const paged = focusId === null;
    setText($('board-page'), paged ? `page ${state.page} of ${state.pages}` : 'around the driver');
    $('board-prev').disabled = !paged || state.page <= 1;
    $('board-next').disabled = !paged || state.page >= state.pages;
  }

  for (const s of [track, car, tune]) s.addEventListener('change', () => { state.page = 1; loadPage(); });
  $('board-form').addEventListener('submit', (ev) => ev.preventDefault());
  $('board-prev').addEventListener('click', () => { state.page--; loadPage(); });
  $('board-next').addEventListener('click', () => { state.page++; loadPage(); });
  $('rank-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const name = $('rank-player').value.trim();
    if (name) findRank(name);
  });
  $('rank-clear').addEventListener('click', () => { $('rank-player').value = ''; state.page = 1; loadPage(); });

  loadBoards();
  return {
    // A lap was just completed somewhere: the board may have changed once the
    // server's writer stored it (a moment later). Not while a rank is shown.
    lapRecorded() {
      clearTimeout(state.timer);
      state.timer = setTimeout(() => { if (!state.rank) loadBoards(); }, 1500);
    },
    rerender() { render(state.rows, state.rank ? state.rank.player_id : null, state.withCar); },
    // The selected room's classes: regroup the cars when they change.
    setClasses(classes) {
      const key = JSON.stringify(classes || []);
      if (key === JSON.stringify(state.classes)) return;
      state.classes = classes || [];
      if (state.boards) {
        const before = car.value;
        fillCars(state.boards.cars);
        if (car.value !== before) { state.page = 1; loadPage(); }
      }
    },
  };
}
