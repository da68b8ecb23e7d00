// The table's sounds, synthesized with the Web Audio API (no audio file to download), and
// the two settings that go with them, kept in localStorage: mute, and reduced motion (which
// follows the system's prefers-reduced-motion until the player chooses).
//
// Browsers let a page play sound only after a user gesture: the AudioContext is made at the
// first tap or key press, and a sound asked for before it is not played. `window.__fx`
// counts what was played (`played`, the `last` and the `names` of the last few), so that a
// test can tell a muted page stays silent.

const MUTE_KEY = "zj-fx-mute";
const MOTION_KEY = "zj-fx-reduced-motion"; // "1", "0", or absent: follow the system
const REDUCE = "(prefers-reduced-motion: reduce)";

const state = { played: 0, last: null, names: [], unlocked: false };
window.__fx = state;

let ctx = null;

export function isMuted() {
  return localStorage.getItem(MUTE_KEY) === "1";
}

export function setMuted(on) {
  localStorage.setItem(MUTE_KEY, on ? "1" : "0");
}

export function reducedMotion() {
  const chosen = localStorage.getItem(MOTION_KEY);
  if (chosen === "1" || chosen === "0") return chosen === "1";
  return window.matchMedia(REDUCE).matches;
}

export function setReducedMotion(on) {
  localStorage.setItem(MOTION_KEY, on ? "1" : "0");
}

// the context, made (or woken) by a user gesture: before one, browsers keep it silent
function unlock() {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return;
  if (!ctx) ctx = new Ctx();
  if (ctx.state === "suspended") ctx.resume().catch(() => {});
  state.unlocked = true;
}
for (const type of ["pointerdown", "keydown", "touchend"]) {
  document.addEventListener(type, unlock, { capture: true, passive: true });
}

// one tone: a wave from `freq` (gliding to `to`), starting `at` s from now, with a short
// attack and an exponential decay over `dur` s
function tone(freq, { at = 0, dur = 0.15, type = "sine", gain = 0.2, to = null } = {}) {
  const start = ctx.currentTime + at;
  const osc = ctx.createOscillator();
  const amp = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, start);
  if (to) osc.frequency.exponentialRampToValueAtTime(to, start + dur);
  amp.gain.setValueAtTime(0.0001, start);
  amp.gain.exponentialRampToValueAtTime(gain, start + 0.008);
  amp.gain.exponentialRampToValueAtTime(0.0001, start + dur);
  osc.connect(amp).connect(ctx.destination);
  osc.start(start);
  osc.stop(start + dur + 0.02);
}

// a tile laid on the table: a short knock of filtered noise and a low body
function click(at) {
  const len = Math.floor(ctx.sampleRate * 0.04);
  const buffer = ctx.createBuffer(1, len, ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < len; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / len) ** 3;
  const noise = ctx.createBufferSource();
  noise.buffer = buffer;
  const band = ctx.createBiquadFilter();
  band.type = "bandpass";
  band.frequency.value = 2400;
  band.Q.value = 1.2;
  const amp = ctx.createGain();
  amp.gain.value = 0.5;
  noise.connect(band).connect(amp).connect(ctx.destination);
  noise.start(ctx.currentTime + at);
  tone(420, { at, dur: 0.06, type: "triangle", gain: 0.15, to: 260 });
}

const SOUNDS = {
  discard: click,
  // 碰 / 杠 / 吃: two quick notes, a fourth apart
  claim: (at) => {
    tone(660, { at, dur: 0.16, type: "triangle", gain: 0.22 });
    tone(880, { at: at + 0.08, dur: 0.22, type: "triangle", gain: 0.2 });
  },
  // 胡 / 自摸: a bright rising major arpeggio
  win: (at) => {
    [784, 988, 1175, 1568].forEach((f, i) => tone(f, { at: at + i * 0.07, dur: 0.35, type: "sine", gain: 0.18 }));
    tone(1568, { at: at + 0.28, dur: 0.5, type: "triangle", gain: 0.08 });
  },
  // your turn: a soft tick
  turn: (at) => tone(1320, { at, dur: 0.07, type: "sine", gain: 0.07 }),
};

// plays one of SOUNDS (`at` s from now), unless muted or no gesture has unlocked sound yet
export function play(name, at = 0) {
  if (isMuted() || !ctx || !SOUNDS[name]) return false;
  if (ctx.state === "suspended") ctx.resume().catch(() => {});
  try {
    SOUNDS[name](at);
  } catch {
    return false; // a browser without some node: silence rather than an error
  }
  state.played += 1;
  state.last = name;
  state.names = [...state.names.slice(-19), name];
  return true;
}
