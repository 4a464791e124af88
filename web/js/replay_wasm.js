/*
 * RacesimReplay: re-simulates a stored leaderboard lap in the browser with
 * the physics core compiled to WebAssembly (web/wasm/), so a page can show
 * the lap and say "verified" only when its own result equals the record.
 * Plain browser JavaScript, no build step, no modules; node can require()
 * it too (the wasm tests do).
 *
 * In a page, after the emscripten glue (a classic script that defines the
 * global factory createRacesimReplay and fetches racesim_replay.wasm from
 * beside itself):
 *
 *   <script src="racesim_replay.js"></script>
 *   <script src="replay_wasm.js"></script>
 *   const replay = await RacesimReplay.load(trackJsonText, [carBlock, ...], proof);
 *   while (!replay.done) { replay.step(1); draw(replay.poses()); }  // one tick per frame
 *   const result = replay.result();
 *   const check = RacesimReplay.checkRecord(result, storedRow);      // {verified, reasons}
 *   replay.free();
 *
 * RacesimReplay.load(trackJsonText, carBlocks, proof, options) -> Promise<replay>
 *   trackJsonText  the track's definition exactly as stored (a string)
 *   carBlocks      array of Uint8Array: the canonical parameter block of every
 *                  car in the proof, as stored (each distinct block once is
 *                  enough: they are matched to the proof's cars by hash)
 *   proof          Uint8Array: the lap proof, decompressed (rs_store_lap_proof)
 *   options        optional: {factory, moduleArgs}: the emscripten factory
 *                  (default: the global createRacesimReplay) and what to pass
 *                  it (e.g. {wasmBinary} under node, {locateFile} in a page)
 *   Rejects with an Error when the track or a block does not load or the
 *   proof is unreadable. Wrong cars or track are not errors: the replay is
 *   then done at once and result() says so.
 *
 * The replay object:
 *   info        the proof's header: {car (1-based slot of the lapping car),
 *               lap, car_count, tick_count, tick_hz, first_tick, track_hash,
 *               car_hashes, physics_version, ...}
 *   carCount, lapCar, tickCount   from info
 *   tick        ticks stepped so far
 *   done        true once the verdict is decided (the lap completed, the log
 *               ended, or the inputs were refused)
 *   step(n = 1) steps up to n ticks; returns how many were stepped
 *   poses()     [{x, y, heading, speed}, ...] per car after the last step
 *               (metres, radians, m/s; car i is slot i + 1)
 *   result()    steps what is left, then the verdict:
 *               {code, verdict, diffs, message, ticks,
 *                recorded: {lap, time_us, end_us, sectors_us, valid,
 *                           invalid_reason, end_hash, end_tick},
 *                simulated: same keys, or null when no lap was simulated,
 *                ok: code === 0}
 *               code is rs_lap_proof_verify's verdict (0 ok, 1 differs,
 *               2 no lap, 3 wrong cars, 4 wrong track, 5 bad snapshot,
 *               6 simulation failed); hashes are 16 lowercase hex digits
 *               (uint64 does not fit a JS number), times integer microseconds.
 *   free()      releases the module's memory for this lap
 *
 * RacesimReplay.checkRecord(result, stored) compares the result with the
 * stored lap row ({time_us, end_hash, and optionally sectors_us, valid}):
 * {verified: true} only when the verdict is ok and the simulated time and
 * end hash equal the stored ones; otherwise reasons lists what differs.
 */
(function (root) {
    'use strict';

    var modules = new Map(); /* factory -> Promise<Module>: one instance per page */

    function moduleFor(options) {
        var factory = options.factory || root.createRacesimReplay;
        if (typeof factory !== 'function')
            return Promise.reject(new Error('RacesimReplay: load racesim_replay.js first ' +
                                            '(createRacesimReplay is not defined)'));
        if (!modules.has(factory))
            modules.set(factory, factory(options.moduleArgs || {}));
        return modules.get(factory);
    }

    /* Copies bytes into the module's heap; the caller frees the pointer. */
    function copyIn(M, bytes) {
        var ptr = M._malloc(bytes.length || 1);
        if (!ptr)
            throw new Error('RacesimReplay: out of memory');
        M.HEAPU8.set(bytes, ptr);
        return ptr;
    }

    function call(M, session, fn, bytes) {
        var ptr = copyIn(M, bytes);
        try {
            if (fn(session, ptr, bytes.length) !== 0)
                throw new Error('RacesimReplay: ' + M.UTF8ToString(M._rsw_error(session)));
        } finally {
            M._free(ptr);
        }
    }

    function Replay(M, session) {
        this._M = M;
        this._s = session;
        this._result = null;
        this.info = JSON.parse(M.UTF8ToString(M._rsw_info_json(session)));
        this.carCount = M._rsw_car_count(session) >>> 0;
        this.lapCar = M._rsw_lap_car(session) >>> 0;
        this.tickCount = M._rsw_tick_count(session) >>> 0;
    }

    Replay.prototype._live = function () {
        if (!this._s)
            throw new Error('RacesimReplay: this replay was freed');
        return this._s;
    };

    Object.defineProperty(Replay.prototype, 'tick', {
        get: function () { return this._M._rsw_ticks(this._live()) >>> 0; }
    });
    Object.defineProperty(Replay.prototype, 'done', {
        get: function () { return this._M._rsw_done(this._live()) !== 0; }
    });

    Replay.prototype.step = function (n) {
        var k = this._M._rsw_step(this._live(), n === undefined ? 1 : n >>> 0);
        return k < 0 ? 0 : k;
    };

    Replay.prototype.poses = function () {
        var M = this._M;
        var at = M._rsw_poses(this._live()) >>> 3; /* doubles */
        var out = [];
        for (var i = 0; i < this.carCount; i++) {
            var p = at + 4 * i;
            out.push({x: M.HEAPF64[p], y: M.HEAPF64[p + 1], heading: M.HEAPF64[p + 2],
                      speed: M.HEAPF64[p + 3]});
        }
        return out;
    };

    Replay.prototype.result = function () {
        if (!this._result) {
            var r = JSON.parse(this._M.UTF8ToString(this._M._rsw_finish(this._live())));
            r.ok = r.code === 0;
            this._result = r;
        }
        return this._result;
    };

    Replay.prototype.free = function () {
        if (this._s) {
            this._M._rsw_free(this._s);
            this._s = 0;
        }
    };

    function load(trackJsonText, carBlocks, proof, options) {
        options = options || {};
        return moduleFor(options).then(function (M) {
            var session = M._rsw_new();
            if (!session)
                throw new Error('RacesimReplay: out of memory');
            try {
                call(M, session, M._rsw_set_track, new TextEncoder().encode(trackJsonText));
                for (var i = 0; i < carBlocks.length; i++)
                    call(M, session, M._rsw_add_car_block, carBlocks[i]);
                call(M, session, M._rsw_open, proof);
            } catch (e) {
                M._rsw_free(session);
                throw e;
            }
            return new Replay(M, session);
        });
    }

    function checkRecord(result, stored) {
        var reasons = [];
        var sim = result.simulated;
        if (!result.ok)
            reasons.push('re-simulation: ' + result.verdict + ': ' + result.message);
        if (!sim) {
            reasons.push('no lap was re-simulated');
        } else {
            if (Number(stored.time_us) !== sim.time_us)
                reasons.push('lap time ' + stored.time_us + ' us stored, ' + sim.time_us +
                             ' us re-simulated');
            if (String(stored.end_hash).toLowerCase() !== sim.end_hash)
                reasons.push('end hash ' + stored.end_hash + ' stored, ' + sim.end_hash +
                             ' re-simulated');
            if (stored.sectors_us &&
                stored.sectors_us.map(Number).join(',') !== sim.sectors_us.join(','))
                reasons.push('sectors ' + stored.sectors_us.join(',') + ' stored, ' +
                             sim.sectors_us.join(',') + ' re-simulated');
            if (stored.valid !== undefined && Boolean(stored.valid) !== sim.valid)
                reasons.push('validity ' + Boolean(stored.valid) + ' stored, ' + sim.valid +
                             ' re-simulated');
        }
        return {verified: reasons.length === 0, reasons: reasons};
    }

    var api = {load: load, checkRecord: checkRecord};
    if (typeof module === 'object' && module.exports)
        module.exports = api;
    else
        root.RacesimReplay = api;
})(typeof globalThis !== 'undefined' ? globalThis : this);
