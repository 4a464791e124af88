/*
 * The browser replay under node: a lap exported from a database by
 * tests/support/lap_export.c is loaded into the WebAssembly module through
 * web/js/replay_wasm.js exactly as a page would, stepped tick by tick, and
 * must verify: verdict ok, lap time, sectors, validity and end hash equal to
 * the stored row, and the same answer as `racectl verify-lap` on the same
 * lap. Then it must fail to verify when one input byte of the proof is
 * flipped (and agree bit for bit with the native re-simulation of that
 * tampered proof), when the stored time is off by a microsecond, when a car
 * block is missing, and refuse a truncated proof.
 *
 * usage: node replay_check.js GLUE_JS WRAPPER_JS LAP_DIR LAP_EXPORT
 *   LAP_DIR holds record.json, track.json, car<i>.bin, proof.bin (lap_export
 *   export) and racectl.json (racectl --json verify-lap). Exit 0 passed, 1 failed.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const {execFileSync} = require('child_process');

const [glue, wrapper, dir, lapExport] = process.argv.slice(2);
if (!lapExport) {
    console.error('usage: node replay_check.js GLUE_JS WRAPPER_JS LAP_DIR LAP_EXPORT');
    process.exit(2);
}

let failures = 0;
function check(ok, what) {
    console.log((ok ? 'ok   ' : 'FAIL ') + what);
    if (!ok)
        failures++;
}

const RacesimReplay = require(path.resolve(wrapper));
const options = {
    factory: require(path.resolve(glue)),
    /* The page fetches the .wasm beside the script; node hands the bytes over. */
    moduleArgs: {wasmBinary: fs.readFileSync(glue.replace(/\.js$/, '.wasm'))},
};

const record = JSON.parse(fs.readFileSync(path.join(dir, 'record.json'), 'utf8'));
const racectl = JSON.parse(fs.readFileSync(path.join(dir, 'racectl.json'), 'utf8'));
const track = fs.readFileSync(path.join(dir, 'track.json'), 'utf8');
const proof = new Uint8Array(fs.readFileSync(path.join(dir, 'proof.bin')));
const blocks = [];
for (let i = 1; i <= record.cars; i++)
    blocks.push(new Uint8Array(fs.readFileSync(path.join(dir, `car${i}.bin`))));

/* The native verdict (rs_lap_proof_verify) on a proof file. */
function nativeVerify(bytes, name) {
    const file = path.join(dir, name);
    fs.writeFileSync(file, bytes);
    return JSON.parse(execFileSync(lapExport, ['verify', dir, file], {encoding: 'utf8'}));
}

async function main() {
    console.log(`lap ${record.lap_id}: car ${record.car} of ${record.cars}, ` +
                `${record.tick_count} ticks, stored ${record.time_us} us, end hash ${record.end_hash}`);

    /* ---- the stored lap, tick by tick as a page animates it */
    const replay = await RacesimReplay.load(track, blocks, proof, options);
    check(replay.carCount === record.cars && replay.lapCar === record.car &&
          replay.tickCount === record.tick_count,
          `info: ${replay.carCount} cars, lap of car ${replay.lapCar}, ${replay.tickCount} ticks`);
    const start = replay.poses()[replay.lapCar - 1];
    let steps = 0, finite = true, maxSpeed = 0, travelled = 0;
    let last = null;
    while (!replay.done) {
        const n = replay.step(1);
        if (n !== 1)
            break;
        steps++;
        const p = replay.poses()[replay.lapCar - 1];
        finite = finite && [p.x, p.y, p.heading, p.speed].every(Number.isFinite);
        maxSpeed = Math.max(maxSpeed, p.speed);
        if (last)
            travelled += Math.hypot(p.x - last.x, p.y - last.y);
        last = p;
    }
    check(steps === record.tick_count && replay.tick === steps,
          `stepped ${steps} ticks one at a time (tick ${replay.tick}), done ${replay.done}`);
    check(finite && maxSpeed > 20 && travelled > 500,
          `poses move: ${travelled.toFixed(0)} m driven, top speed ${maxSpeed.toFixed(1)} m/s ` +
          `(start ${start.x.toFixed(1)}, ${start.y.toFixed(1)})`);
    const r = replay.result();
    console.log(`     result: ${JSON.stringify(r)}`);
    check(r.ok && r.code === 0 && r.verdict === 'ok', `verdict ${r.verdict}: ${r.message}`);
    check(r.simulated !== null && r.simulated.time_us === record.time_us,
          `lap time ${r.simulated && r.simulated.time_us} us = stored ${record.time_us} us`);
    check(r.simulated !== null && r.simulated.end_hash === record.end_hash,
          `end hash ${r.simulated && r.simulated.end_hash} = stored ${record.end_hash}`);
    check(r.simulated !== null &&
          r.simulated.sectors_us.join(',') === record.sectors_us.join(',') &&
          r.simulated.valid === record.valid,
          `sectors ${r.simulated && r.simulated.sectors_us} and validity = stored`);
    const verdict = RacesimReplay.checkRecord(r, record);
    check(verdict.verified, `checkRecord: verified ${verdict.verified} ${verdict.reasons}`);
    check(racectl.ok === true && racectl.verdict === 'ok' &&
          racectl.simulated.time_us === r.simulated.time_us &&
          racectl.simulated.end_hash === r.simulated.end_hash,
          `racectl verify-lap agrees: ${racectl.verdict}, ${racectl.simulated.time_us} us, ` +
          `${racectl.simulated.end_hash}`);
    replay.free();

    /* ---- the page may pass each block once, in any order: matched by hash */
    const again = await RacesimReplay.load(track, blocks.slice().reverse().concat(blocks),
                                           proof, options);
    const r2 = again.result();
    check(r2.ok && r2.simulated.end_hash === record.end_hash,
          `blocks reversed and repeated, result() without stepping: ${r2.verdict}`);
    again.free();

    /* ---- the stored row says something else: not verified */
    const off = RacesimReplay.checkRecord(r, Object.assign({}, record, {time_us: record.time_us + 1}));
    check(!off.verified, `stored time +1 us: not verified (${off.reasons})`);
    const offHash = RacesimReplay.checkRecord(r, Object.assign({}, record, {
        end_hash: (record.end_hash[0] === '0' ? '1' : '0') + record.end_hash.slice(1)}));
    check(!offHash.verified, `stored end hash changed: not verified (${offHash.reasons})`);

    /* ---- one input byte flipped: a third into the log, the lapping car's throttle */
    const inputs = proof.length - record.tick_count * record.cars * 8;
    const at = inputs + (Math.floor(record.tick_count / 3) * record.cars + (record.car - 1)) * 8 + 2;
    const tampered = proof.slice();
    tampered[at] ^= 0xff;
    const bad = await RacesimReplay.load(track, blocks, tampered, options);
    const rb = bad.result();
    bad.free();
    console.log(`     tampered: ${JSON.stringify(rb)}`);
    check(!rb.ok && (rb.code === 1 || rb.code === 2),
          `input byte ${at} flipped (${proof[at]} -> ${tampered[at]}): ${rb.verdict}: ${rb.message}`);
    const tv = RacesimReplay.checkRecord(rb, record);
    check(!tv.verified, `tampered lap: checkRecord says not verified`);
    const native = nativeVerify(tampered, 'tampered.bin');
    check(native.code === rb.code && native.diffs === rb.diffs &&
          (!rb.simulated || (native.time_us === rb.simulated.time_us &&
                             native.end_hash === rb.simulated.end_hash)),
          `native re-simulation of the tampered proof agrees bit for bit: ${JSON.stringify(native)}`);

    /* ---- the smallest change: one steering unit of the lapping car, a third
     * in. The lap still completes but ends elsewhere: both builds must
     * compute the same different end hash. */
    const nudged = proof.slice();
    const steerAt = at - 2;
    nudged[steerAt] ^= 0x01;
    const nb = await RacesimReplay.load(track, blocks, nudged, options);
    const rn = nb.result();
    nb.free();
    check(!rn.ok && !RacesimReplay.checkRecord(rn, record).verified,
          `steering byte ${steerAt} nudged by one unit: ${rn.verdict}: ${rn.message}`);
    const nativeNudged = nativeVerify(nudged, 'nudged.bin');
    check(nativeNudged.code === rn.code && nativeNudged.diffs === rn.diffs &&
          (!rn.simulated || (nativeNudged.time_us === rn.simulated.time_us &&
                             nativeNudged.end_hash === rn.simulated.end_hash)),
          `native re-simulation of the nudged proof agrees bit for bit: ` +
          `${JSON.stringify(nativeNudged)}`);

    /* ---- the lapping car's block missing: refused before simulating */
    const own = Buffer.from(blocks[record.car - 1]);
    const others = blocks.filter(b => !Buffer.from(b).equals(own));
    const missing = await RacesimReplay.load(track, others, proof, options);
    const rm = missing.result();
    missing.free();
    check(rm.code === 3 && rm.verdict === 'wrong_cars' && rm.ticks === 0,
          `the lapping car's block missing: ${rm.verdict} after ${rm.ticks} ticks: ${rm.message}`);

    /* ---- a truncated proof does not load */
    let refused = null;
    try {
        (await RacesimReplay.load(track, blocks, proof.slice(0, proof.length - 1), options)).free();
    } catch (e) {
        refused = e.message;
    }
    check(refused !== null, `truncated proof refused: ${refused}`);

    console.log(failures ? `replay_check: FAIL (${failures})` : 'replay_check: passed');
    process.exit(failures ? 1 : 0);
}

main().catch(e => {
    console.error('replay_check: FAIL:', e && e.stack || e);
    process.exit(1);
});
