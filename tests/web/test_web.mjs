// The web page in a real browser (headless Chromium through puppeteer-core)
// against a real raceserver with bots racing; test_web.sh starts them and
// calls this with the environment below. Every check reads the page itself
// (its DOM, or window.__racesim, the state it draws from) and fails the test
// when the page does not show what the API holds.
//
//   RS_BASE        http://127.0.0.1:PORT/ of the raceserver
//   RS_BOTS        the bots' names, comma-separated
//   RS_CLASSES     each bot's class, in the same order
//   RS_CHROMIUM    the browser
//   RS_NODE_DIR    the folder npm ci installed puppeteer-core in (its node_modules)
//   RS_SHOTS       folder for the screenshots
//   RS_WASM        1 when the web root has wasm/racesim_replay.js
import {createRequire} from 'node:module';
import {createHash} from 'node:crypto';
import {mkdirSync} from 'node:fs';

const require = createRequire(`${process.env.RS_NODE_DIR}/`);
const puppeteer = require('puppeteer-core');

const base = process.env.RS_BASE;
const bots = process.env.RS_BOTS.split(',');
const botClass = Object.fromEntries(process.env.RS_CLASSES.split(',').map((c, i) => [bots[i], c]));
const shots = process.env.RS_SHOTS;
const haveWasm = process.env.RS_WASM === '1';
mkdirSync(shots, {recursive: true});

const started = Date.now();
const log = (msg) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${msg}`);
function fail(msg) {
  throw new Error(msg);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const api = async (path) => {
  const res = await fetch(new URL(path, base));
  if (!res.ok) fail(`${path}: HTTP ${res.status}`);
  return path.endsWith('/proof') ? new Uint8Array(await res.arrayBuffer()) : res.json();
};
// The page's time format (web/js/util.js), to compare with the API's numbers.
const lapTime = (us) => {
  const ms = Math.round(us / 1000);
  return `${Math.floor(ms / 60000)}:${String(Math.floor((ms % 60000) / 1000)).padStart(2, '0')}.${String(ms % 1000).padStart(3, '0')}`;
};
const shown = (name) => (name.startsWith('~') ? `${name.slice(1)} (guest)` : name);

// Polls fn (in node) until it returns a truthy value.
async function until(what, timeoutMs, fn) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) fail(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(250);
  }
}

// Clicks the element a selector finds, once there is one. The page rebuilds
// its lists (races, boards) on a timer, so an element handle taken first and
// clicked later may belong to a row already replaced ("Node is detached from
// document"); finding and clicking in one step inside the page cannot be.
async function clickWhenThere(p, selector, what, timeoutMs) {
  await until(what, timeoutMs, () => p.evaluate((sel) => {
    const n = document.querySelector(sel);
    if (n) n.click();
    return Boolean(n);
  }, selector));
}

const browser = await puppeteer.launch({
  executablePath: process.env.RS_CHROMIUM,
  headless: true,
  // Chromium refuses to start its sandbox as root (CI containers run tests
  // as root); as any other user the sandbox stays on.
  args: [...(process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : []),
         '--disable-dev-shm-usage', '--window-size=1400,1000'],
  defaultViewport: {width: 1400, height: 1000},
});

// A page whose script errors, CSP violations and failed requests fail the
// test (a 404 for the replay module is expected where it was not built).
async function openPage(setup) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const url = (m.location() && m.location().url) || '';
    // Expected 404s: the replay module where it was not built (the page asks
    // whether it is there), and a rank search for a guest, which the page
    // retries under the guest's stored name "~name".
    if (/Failed to load resource: .* 404/.test(m.text()) &&
        ((!haveWasm && /\/wasm\/racesim_replay\.js$/.test(url)) ||
         /\/api\/v1\/leaderboard\/rank\?.*player=[^~%]/.test(url))) return;
    errors.push(`console: ${m.text()} ${url}`);
  });
  page.errors = errors;
  if (setup) await setup(page);
  await page.goto(base, {waitUntil: 'domcontentloaded'});
  await page.waitForFunction(() => window.__racesim && window.__racesim.ready, {timeout: 10000});
  return page;
}
const noErrors = (page) => {
  if (page.errors && page.errors.length) fail(`the page reported errors:\n  ${page.errors.join('\n  ')}`);
};

let failed = false;
try {
  // ------------------------------------------------------------ live timing
  const page = await openPage();
  log('page loaded');
  await page.waitForFunction((names) => {
    const cells = [...document.querySelectorAll('#tower-body th.driver')].map((c) => c.textContent);
    return names.every((n) => cells.some((c) => c.includes(n)));
  }, {timeout: 20000}, bots).catch(() => fail('the timing tower does not list every bot'));
  const rows = await page.$$eval('#tower-body tr', (trs) => trs.map((tr) => tr.children[0].textContent));
  if (rows.join(',') !== bots.map((_, i) => i + 1).join(','))
    fail(`the tower's positions are ${rows.join(',')}`);
  log(`tower lists ${bots.join(', ')} in positions ${rows.join(',')}`);
  // Each row's class and place in it, as the API has them; the session line
  // names the session and its flag.
  const room = await api('api/v1/rooms/default');
  await until('the tower to show every class position', 5000, async () => {
    const cells = await page.$$eval('#tower-body tr', (trs) => trs.map((tr) =>
      [tr.querySelector('th.driver').textContent, tr.children[1].textContent.trim()]));
    const now = await api('api/v1/rooms/default');
    const want = now.entries.map((e) => `${e.class} ${e.class_position}`);
    return cells.map((c) => c[1]).join('|') === want.join('|') &&
      cells.every(([n, c]) => c.startsWith(botClass[bots.find((b) => n.includes(b))]));
  }).catch(async (e) => fail(`${e.message}: the tower's class column: ` +
    (await page.$$eval('#tower-body tr', (trs) => trs.map((tr) => tr.children[1].textContent)))));
  const chips = await page.$$eval('#tower-body .class-chip', (cs) => cs.map((c) => c.style.background));
  if (new Set(chips).size !== new Set(Object.values(botClass)).size || chips.some((c) => !c))
    fail(`class colours in the tower: ${chips.join(', ')}`);
  const line = await page.$eval('#session-text', (n) => ({type: n.dataset.type, text: n.textContent}));
  const flag = await page.$eval('#session-flag', (n) => n.dataset.flag);
  if (line.type !== room.session.type || !line.text.includes('Race (1 of 1') ||
      !['none', 'green', 'chequered'].includes(flag) || !/lap \d of 1|1 lap/.test(line.text))
    fail(`the session line says "${line.text}" (flag ${flag}); the API: ${JSON.stringify(room.session)}`);
  log(`session line "${line.text.trim()}", flag ${flag}; class positions and colours shown`);

  // Cars move on the map: what the page drew, against a first sample. Every
  // car must get more than a metre from where it was; a car whose first
  // inputs came late (a sanitizer build under load) may take a few seconds.
  await page.waitForFunction(() => (window.__racesim.live.counts.positions || 0) > 5 &&
                                   window.__racesim.live.outlineHash, {timeout: 20000})
    .catch(() => fail('no positions from the live feed, or no track outline'));
  const drawn = () => page.evaluate(() => window.__racesim.drawn);
  const a = await drawn();
  const t0 = Date.now();
  let moved = [];
  await until('every car to move on the map', 15000, async () => {
    const b = await drawn();
    if (a.length !== bots.length || b.length !== bots.length)
      fail(`the map draws ${a.length} then ${b.length} cars, not ${bots.length}`);
    moved = b.map((p) => {
      const q = a.find((c) => c.car === p.car);
      return q ? Math.hypot(p.x - q.x, p.y - q.y) : 0;
    });
    return Date.now() - t0 >= 1500 && moved.every((d) => d > 1);
  }).catch((e) => fail(`${e.message}: cars moved ${moved.map((d) => d.toFixed(2)).join(', ')} m`));
  log(`cars moved ${moved.map((d) => d.toFixed(1)).join(', ')} m in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await page.screenshot({path: `${shots}/live.png`});

  // -------------------------------------------------------------- leaderboard
  // The first laps end about a minute in; the page reloads its board itself.
  // The board of the room's first car (two bots drive it) is picked on the
  // page: which board the page picks first depends on whether the room's
  // classes or the boards load first (a class's board, or a car's). Once
  // every bot driving that car has a lap there, the page must show the same
  // rows.
  const carClass = Object.fromEntries(room.cars.map((c) => [c.hash, c.class]));
  const firstCar = room.cars[0].hash;
  const boards = await until('laps on a leaderboard', 120000, async () => {
    const bs = await api('api/v1/boards');
    const offered = await page.$eval('#board-car', (s, h) =>
      [...s.options].some((o) => o.value === h), firstCar);
    if (!bs.tracks.length || !offered) return null;
    if (await page.$eval('#board-car', (s) => s.value) !== firstCar)
      await page.select('#board-car', firstCar);
    const lb = await api(`api/v1/leaderboard?track=${bs.tracks[0].hash}&car=${firstCar}`);
    const want = bots.filter((b) => botClass[b] === carClass[firstCar]).length;
    return want && lb.total >= want ? lb : null;
  });
  // The cars are grouped by the room's classes once each has a board.
  const groups = await until('the board cars grouped by class', 60000, async () => {
    const g = await page.$$eval('#board-car optgroup', (os) => os.map((o) =>
      `${o.label}: ${[...o.children].map((c) => c.textContent).join(', ')}`));
    return g.length === room.classes.length ? g : null;
  });
  // Each group begins with its class's board.
  if (groups.join('; ') !== room.classes.map((c) => `${c.name}: All ${c.name} cars, ${c.cars.map((x) => x.name).join(', ')}`).join('; '))
    fail(`the board's car groups are ${groups.join('; ')}`);
  log(`board cars by class: ${groups.join('; ')}`);
  log(`${boards.total} laps stored; the fastest ${lapTime(boards.rows[0].time_us)}`);
  const want = boards.rows.map((r) => [String(r.rank), shown(r.player), lapTime(r.time_us)].join(' '));
  const boardRows = () => page.$$eval('#board-body tr', (trs) =>
    trs.map((tr) => [...tr.children].slice(0, 3).map((c) => c.textContent).join(' ')));
  await until('the page to show the leaderboard', 15000, async () =>
    (await boardRows()).join('|') === want.join('|')).catch(async (e) => {
    fail(`${e.message}: the page shows [${(await boardRows()).join('; ')}], the API [${want.join('; ')}]`);
  });
  log(`leaderboard shows ${want.join('; ')}`);

  // A driver's rank: the search finds them and marks their row.
  const target = boards.rows[boards.rows.length - 1];
  await page.type('#rank-player', target.player.replace(/^~/, ''));
  await page.click('#rank-form button[type=submit]');
  await page.waitForFunction((id) => {
    const f = document.querySelector('#board-body tr.focus');
    return f && f.dataset.lap === String(id);
  }, {timeout: 5000}, target.lap_id).catch(() => fail(`the rank search does not mark ${target.player}'s row`));
  const note = await page.$eval('#board-note', (n) => n.textContent);
  if (!note.includes(`ranked ${target.rank}`)) fail(`the rank search says "${note}"`);
  log(`rank search: "${note}"`);
  await page.screenshot({path: `${shots}/leaderboard.png`, fullPage: true});
  await page.click('#rank-clear');

  // A class's board: its cars' boards merged, each row naming its car.
  const cls = room.classes[0];
  await page.select('#board-car', `class:${cls.name}`);
  const classBoard = await api(`api/v1/leaderboard?track=${boards.track.hash}` +
                               cls.cars.map((x) => `&car=${x.hash}`).join(''));
  const wantClass = classBoard.rows.map((r) => `${shown(r.player)}${r.car.name}`);
  const classRows = () => page.$$eval('#board-body tr th.driver', (ths) => ths.map((th) => th.textContent));
  await until('the page to show the class board', 15000, async () =>
    (await classRows()).join('|') === wantClass.join('|')).catch(async (e) => {
    fail(`${e.message}: the class board shows [${(await classRows()).join('; ')}], the API [${wantClass.join('; ')}]`);
  });
  if (classBoard.total !== bots.filter((b) => botClass[b] === cls.name).length)
    fail(`class ${cls.name}'s board holds ${classBoard.total} drivers`);
  log(`class ${cls.name}'s board shows ${wantClass.join('; ')}`);
  await page.select('#board-car', boards.car.hash);
  // ---------------------------------------------------------------- results
  // The finished race's classification: class positions, penalties, laps led.
  const race = await until('a finished race', 60000, async () =>
    (await api('api/v1/races?type=race')).races.find((x) => x.status === 'finished'));
  const detail = await api(`api/v1/races/${race.id}`);
  await clickWhenThere(page, `#race-body tr[data-race="${race.id}"] button`,
                       `race ${race.id} in the page's list`, 35000);
  const wantRows = detail.results.map((r) => [String(r.position), `${r.class} ${r.class_position}`,
    shown(r.player), String(r.laps_led), r.penalty_ms ? `+${r.penalty_ms / 1000} s` : ''].join(' '));
  const resultRows = () => page.$$eval('#results-body tr', (trs) => trs.map((tr) =>
    [0, 1, 3, 8, 10].map((i) => tr.children[i].textContent).join(' ')));
  await until('the page to show the race results', 10000, async () =>
    (await resultRows()).join('|') === wantRows.join('|')).catch(async (e) => {
    fail(`${e.message}: the page shows [${(await resultRows()).join('; ')}], the API [${wantRows.join('; ')}]`);
  });
  if (detail.results.some((r) => r.class !== botClass[r.player.replace(/^~/, '')]))
    fail(`stored classes: ${JSON.stringify(detail.results.map((r) => [r.player, r.class]))}`);
  log(`results show ${wantRows.join('; ')}`);
  await page.$eval('#race-results', (n) => n.scrollIntoView());
  await page.screenshot({path: `${shots}/results.png`});

  // --------------------------------------------------------------- replay
  const lap = await api(`api/v1/laps/${boards.rows[0].lap_id}`);
  const proof = await api(`api/v1/laps/${lap.lap_id}/proof`);
  if (!lap.proof) fail(`lap ${lap.lap_id} has no proof`);

  // Runs the replay of the first board row on page p, with its proof
  // tampered or not; returns the verdict element's state and text.
  // The tampered proof: the lapping car's throttle inverted at one tick
  // mid-lap (the inputs are the proof's last bytes, 8 per car per tick,
  // throttle third: physics/include/racesim/lapproof.h). Any byte would do
  // for a checksum, but the proof has none: the point is that a changed
  // input changes the re-simulated lap, bit for bit.
  const tampered = Buffer.from(proof);
  const nCars = lap.proof.cars.length;
  const inputs = tampered.length - lap.proof.ticks * nCars * 8;
  tampered[inputs + ((lap.proof.ticks >> 1) * nCars + lap.proof.car - 1) * 8 + 2] ^= 0xff;
  let tamperedServed = 0;

  async function replay(p, tamper, name) {
    if (tamper) {
      await p.setRequestInterception(true); // also turns the page's HTTP cache off
      p.on('request', (req) => {
        if (!req.url().endsWith(`/api/v1/laps/${lap.lap_id}/proof`)) return req.continue();
        tamperedServed++;
        req.respond({status: 200, contentType: 'application/octet-stream', body: tampered});
      });
    }
    await p.select('#replay-speed', '16'); // the lap at 16 times real speed: a few seconds
    await clickWhenThere(p, `#board-body button[data-lap="${lap.lap_id}"]:not([disabled])`,
                         `${name}: lap ${lap.lap_id}'s replay button`, 10000);
    await p.waitForFunction(() => ['verified', 'not-verified', 'no-proof']
      .includes(document.getElementById('replay-verdict').dataset.state), {timeout: 60000})
      .catch(() => fail(`${name}: the replay reached no verdict`));
    if (tamper && !tamperedServed) fail(`${name}: the page did not fetch the proof`);
    tamperedServed = 0;
    const v = await p.$eval('#replay-verdict', (n) => ({state: n.dataset.state, text: n.textContent}));
    const why = await p.$$eval('#replay-reasons li', (li) => li.map((n) => n.textContent));
    const prog = await p.$eval('#replay-progress', (n) => n.value / n.max);
    await p.$eval('#replay', (n) => n.scrollIntoView());
    await p.screenshot({path: `${shots}/${name}.png`});
    log(`${name}: ${v.state}: ${v.text}${why.length ? ` (${why.join('; ')})` : ''}`);
    return {...v, why, prog};
  }

  if (haveWasm) {
    const good = await replay(await openPage(), false, 'replay');
    if (good.state !== 'verified' || !good.text.startsWith('Verified'))
      fail(`the stored lap is not verified: ${good.text} ${good.why.join('; ')}`);
    const bad = await replay(await openPage(), true, 'replay-tampered');
    if (bad.state !== 'not-verified' || !bad.text.startsWith('NOT verified'))
      fail(`a tampered proof is shown as ${bad.state}: ${bad.text}`);
  } else {
    const label = await page.$eval(`#board-body button[data-lap="${lap.lap_id}"]`,
                                   (b) => `${b.disabled ? 'disabled' : 'enabled'} "${b.textContent}"`);
    if (label !== 'disabled "replay unavailable"')
      fail(`without the replay module the replay button is ${label}`);
    console.log('SKIPPED: the WebAssembly replay (no wasm/racesim_replay.js in the web root): ' +
                'the real re-simulation is not checked; the replay button says "replay unavailable"');
  }

  // The replay panel's own logic with a stand-in for the replay module: it
  // says the stored result only for the untouched proof (compared by
  // SHA-256), so "verified" needs the page to fetch the lap, its proof, car
  // blocks and track, drive the replay to the end and compare the result
  // with the record; the tampered proof must come out "NOT verified".
  const digest = createHash('sha256').update(proof).digest('hex');
  const standIn = (p) => p.evaluateOnNewDocument((expect) => {
    window.RacesimReplay = {
      async load(trackText, blocks, proofBytes) {
        JSON.parse(trackText); // the track as stored: JSON
        if (blocks.length !== expect.cars || !blocks.every((b) => b.length > 0))
          throw new Error(`stand-in: ${blocks.length} car blocks, expected ${expect.cars}`);
        const hex = [...new Uint8Array(await crypto.subtle.digest('SHA-256', proofBytes))]
          .map((x) => x.toString(16).padStart(2, '0')).join('');
        const same = hex === expect.digest;
        let tick = 0;
        return {
          tickCount: expect.ticks, lapCar: expect.car, info: {tick_hz: expect.hz},
          get done() { return tick >= expect.ticks; },
          step(n) { const k = Math.min(n, expect.ticks - tick); tick += k; return k; },
          poses() { return [{x: tick / 10, y: 0, heading: 0, speed: 40}]; },
          result() {
            return {code: same ? 0 : 1, verdict: same ? 'ok' : 'differs', message: '',
                    simulated: {time_us: expect.time_us, end_hash: same ? expect.end_hash : '0123456789abcdef'}};
          },
          free() {},
        };
      },
    };
  }, {digest, cars: new Set(lap.proof.cars).size, ticks: lap.proof.ticks, hz: lap.proof.tick_hz,
      car: lap.proof.car, time_us: lap.time_us, end_hash: lap.end_hash});
  const sGood = await replay(await openPage(standIn), false, 'replay-standin');
  if (sGood.state !== 'verified' || sGood.prog !== 1)
    fail(`stand-in replay: ${sGood.state} at ${(sGood.prog * 100).toFixed(0)} %: ${sGood.text} ${sGood.why.join('; ')}`);
  const sBad = await replay(await openPage(standIn), true, 'replay-standin-tampered');
  if (sBad.state !== 'not-verified' || !sBad.why.some((w) => w.startsWith('end hash')))
    fail(`stand-in replay of a tampered proof: ${sBad.state}: ${sBad.text}`);

  for (const p of await browser.pages()) noErrors(p);
  log('passed');
} catch (e) {
  failed = true;
  console.log(`FAIL: ${e.message}`);
  for (const p of await browser.pages()) {
    if (p.errors && p.errors.length) console.log(`  page errors: ${p.errors.join('; ')}`);
    await p.screenshot({path: `${shots}/failure-${(await browser.pages()).indexOf(p)}.png`}).catch(() => {});
  }
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
