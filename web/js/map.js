// The track map: a canvas drawn from a track outline (both edges, the
// start/finish line and the sector lines) with the cars on it. Used twice:
// the live map (main.js) and the replay's (replay.js).

const PALETTE = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#42d4f4',
                 '#f032e6', '#bfef45', '#fabed4', '#469990', '#dcbeff', '#9a6324',
                 '#fffac8', '#800000', '#aaffc3', '#808000'];

export function carColour(car) {
  return PALETTE[(Math.max(1, car) - 1) % PALETTE.length];
}

// Edges of the closed centre line: a point every few metres as
// [x, y, heading, width_left, width_right] (the outline endpoint's shape).
function edges(points) {
  const left = [], right = [];
  for (const [x, y, h, wl, wr] of points) {
    const nx = -Math.sin(h), ny = Math.cos(h); // left of the heading, y up
    left.push([x + nx * wl, y + ny * wl]);
    right.push([x - nx * wr, y - ny * wr]);
  }
  return {left, right};
}

// A track definition's centre_line ([x, y, width_left, width_right]) as
// outline points: the headings from the neighbours. For a replay of a track
// no room of this server runs (the outline endpoint only knows live tracks).
export function outlineFromTrack(track) {
  const c = track && Array.isArray(track.centre_line) ? track.centre_line : null;
  if (!c || c.length < 3) return null;
  const n = c.length;
  const points = c.map((p, i) => {
    const a = c[(i - 1 + n) % n], b = c[(i + 1) % n];
    return [p[0], p[1], Math.atan2(b[1] - a[1], b[0] - a[0]), p[2] ?? 6, p[3] ?? 6];
  });
  return {name: track.name, points, lines: []};
}

export class TrackMap {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.outline = null;
    this.edges = null;
    this.cars = [];
    this.trail = null; // [[x, y], ...] drawn under the cars when set
    this.message = '';
    // Sharp on high-density screens and after the layout changes the size.
    new ResizeObserver(() => this.resize()).observe(canvas);
    this.resize();
  }

  resize() {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(200, Math.round(this.canvas.clientWidth * dpr));
    const h = Math.round(w * 0.75);
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
      this.draw();
    }
  }

  setOutline(outline) {
    this.outline = outline && outline.points && outline.points.length > 2 ? outline : null;
    this.edges = this.outline ? edges(this.outline.points) : null;
    this.bounds = null;
    if (this.edges) this.bounds = boundsOf([...this.edges.left, ...this.edges.right]);
    this.draw();
  }

  // Without an outline the view fits whatever is drawn (e.g. a replay's trail).
  fitPoints(pts) {
    if (!this.edges && pts.length) this.bounds = boundsOf(pts);
  }

  // cars: [{car, x, y, heading, label, focus}]
  setCars(cars) {
    this.cars = cars;
  }

  transform() {
    const b = this.bounds || {minX: -100, maxX: 100, minY: -100, maxY: 100};
    const w = this.canvas.width, h = this.canvas.height;
    const bw = Math.max(1, b.maxX - b.minX), bh = Math.max(1, b.maxY - b.minY);
    const s = Math.min(w / bw, h / bh) * 0.9;
    const ox = w / 2 - s * (b.minX + b.maxX) / 2, oy = h / 2 + s * (b.minY + b.maxY) / 2;
    return {s, x: (x) => ox + s * x, y: (y) => oy - s * y}; // world y up, canvas y down
  }

  draw() {
    const {ctx, canvas} = this;
    const dpr = window.devicePixelRatio || 1;
    ctx.fillStyle = '#12161c';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    const t = this.transform();
    if (this.edges) this.drawTrack(t, dpr);
    if (this.trail && this.trail.length > 1) {
      ctx.strokeStyle = 'rgba(255, 214, 10, 0.5)';
      ctx.lineWidth = 1.5 * dpr;
      ctx.beginPath();
      this.trail.forEach(([x, y], i) => (i ? ctx.lineTo(t.x(x), t.y(y)) : ctx.moveTo(t.x(x), t.y(y))));
      ctx.stroke();
    }
    for (const c of this.cars) this.drawCar(t, dpr, c);
    if (this.message) {
      ctx.fillStyle = '#c9d1d9';
      ctx.font = `${14 * dpr}px system-ui, sans-serif`;
      ctx.textAlign = 'center';
      ctx.fillText(this.message, canvas.width / 2, canvas.height / 2);
    }
  }

  drawTrack(t, dpr) {
    const {ctx} = this;
    const {left, right} = this.edges;
    const path = (pts) => {
      ctx.moveTo(t.x(pts[0][0]), t.y(pts[0][1]));
      for (let i = 1; i < pts.length; i++) ctx.lineTo(t.x(pts[i][0]), t.y(pts[i][1]));
      ctx.closePath();
    };
    // The surface: the area between the two closed edges.
    ctx.beginPath();
    path(left);
    path(right);
    ctx.fillStyle = '#3a4049';
    ctx.fill('evenodd');
    ctx.strokeStyle = '#e8e8e8';
    ctx.lineWidth = 1.5 * dpr;
    for (const side of [left, right]) {
      ctx.beginPath();
      path(side);
      ctx.stroke();
    }
    (this.outline.lines || []).forEach(([ax, ay, bx, by], i) => {
      ctx.beginPath();
      ctx.moveTo(t.x(ax), t.y(ay));
      ctx.lineTo(t.x(bx), t.y(by));
      ctx.strokeStyle = i === 0 ? '#ffffff' : 'rgba(255, 214, 10, 0.6)';
      ctx.lineWidth = (i === 0 ? 4 : 1.5) * dpr;
      ctx.stroke();
    });
  }

  drawCar(t, dpr, c) {
    const {ctx} = this;
    const x = t.x(c.x), y = t.y(c.y);
    const r = (c.focus ? 7 : 5.5) * dpr;
    ctx.save();
    ctx.translate(x, y);
    ctx.rotate(-c.heading); // canvas y is down: angles turn the other way
    ctx.beginPath(); // a small arrow pointing along the heading
    ctx.moveTo(r * 1.6, 0);
    ctx.lineTo(-r, r);
    ctx.lineTo(-r * 0.5, 0);
    ctx.lineTo(-r, -r);
    ctx.closePath();
    ctx.fillStyle = carColour(c.car);
    ctx.fill();
    ctx.lineWidth = dpr;
    ctx.strokeStyle = '#000';
    ctx.stroke();
    ctx.restore();
    if (c.label) {
      ctx.font = `${11 * dpr}px system-ui, sans-serif`;
      ctx.textAlign = 'left';
      ctx.fillStyle = '#f0f0f0';
      ctx.fillText(c.label, x + r * 1.5, y - r * 1.2);
    }
  }
}

function boundsOf(pts) {
  const b = {minX: Infinity, maxX: -Infinity, minY: Infinity, maxY: -Infinity};
  for (const [x, y] of pts) {
    b.minX = Math.min(b.minX, x); b.maxX = Math.max(b.maxX, x);
    b.minY = Math.min(b.minY, y); b.maxY = Math.max(b.maxY, y);
  }
  return b;
}

// Smooth motion from ~10 Hz samples: positions are shown DELAY_MS in the
// past, interpolated between the two samples around that moment (an
// entity-interpolation buffer), so cars glide instead of jumping 10 times a
// second. Sample times are the local arrival times: on a steady feed they
// are 100 ms apart, and they need no clock shared with the server.
const DELAY_MS = 150;

export class PoseBuffer {
  constructor() { this.samples = []; }

  clear() { this.samples = []; }

  // cars: [[car, x, y, heading, speed], ...] as the feed sends them.
  push(now, cars) {
    const map = new Map(cars.map((c) => [c[0], c]));
    this.samples.push({t: now, cars: map});
    while (this.samples.length > 8) this.samples.shift();
  }

  // [{car, x, y, heading, speed}] at now - DELAY_MS.
  at(now) {
    const s = this.samples;
    if (!s.length) return [];
    const t = now - DELAY_MS;
    let i = s.length - 1;
    while (i > 0 && s[i - 1].t > t) i--;
    const b = s[i], a = i > 0 ? s[i - 1] : b;
    const f = b.t > a.t ? Math.min(1, Math.max(0, (t - a.t) / (b.t - a.t))) : 1;
    const out = [];
    for (const [car, cb] of b.cars) {
      const ca = a.cars.get(car) || cb;
      let dh = cb[3] - ca[3];
      dh = Math.atan2(Math.sin(dh), Math.cos(dh)); // the short way round
      out.push({car, x: ca[1] + (cb[1] - ca[1]) * f, y: ca[2] + (cb[2] - ca[2]) * f,
                heading: ca[3] + dh * f, speed: ca[4] + (cb[4] - ca[4]) * f});
    }
    return out;
  }
}
