// The quick chat's ids (app/protocol/vocabulary.py CHAT_PHRASES): its phrases (快捷语) and
// its reactions, the reactions drawn as small SVG pictures rather than emoji: a browser
// without an emoji font (many Linux desktops, headless test browsers) would show empty
// boxes. Their words (the log, screen readers, tooltips) are the i18n labels `chat_<id>`.

const SVG_NS = "http://www.w3.org/2000/svg";
export const PHRASES = ["hello", "hurry", "nice_play", "sorry", "thanks", "again", "lucky",
  "wait", "bye", "good_game"];
export const REACTIONS = ["thumbs_up", "laugh", "cry", "angry", "wow"];

const SKIN = { fill: "#ffcc4d", stroke: "#b07d00", "stroke-width": 1.2 };
const DARK = "#5b2a0c";

function el(name, attrs) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

const line = (d, width = 1.8) => el("path", { d, fill: "none", stroke: DARK, "stroke-width": width,
  "stroke-linecap": "round" });

// each picture in a 32 x 32 box
const DRAW = {
  thumbs_up: () => [
    el("rect", { x: 4, y: 14, width: 6, height: 14, rx: 1, fill: "#3f7fd1", stroke: "#24508a", "stroke-width": 1.2 }),
    el("path", { d: "M10 15 l5 -8 q1.5 -3 3.5 -1.8 q1.8 1.2 .8 4.3 l-1.2 3.5 h7.4 q2.5 0 2.5 2.3 q0 1.3 -1 2 " +
      "q1.5 .9 .4 2.6 q1.2 1 -.2 2.5 q.8 1.9 -1.6 2.6 h-14.6 z", ...SKIN }),
  ],
  laugh: () => [
    el("circle", { cx: 16, cy: 16, r: 14, ...SKIN }),
    line("M8.5 13 q2.5 -3.5 5 0"), line("M18.5 13 q2.5 -3.5 5 0"),
    el("path", { d: "M8.5 18 h15 q0 8.5 -7.5 8.5 q-7.5 0 -7.5 -8.5 z", fill: DARK }),
  ],
  cry: () => [
    el("circle", { cx: 16, cy: 16, r: 14, ...SKIN }),
    line("M8.5 12 q2.5 2.5 5 0"), line("M18.5 12 q2.5 2.5 5 0"),
    line("M11 24.5 q5 -5 10 0"),
    el("ellipse", { cx: 10.5, cy: 18.5, rx: 1.8, ry: 3.6, fill: "#5dadec" }),
    el("ellipse", { cx: 21.5, cy: 18.5, rx: 1.8, ry: 3.6, fill: "#5dadec" }),
  ],
  angry: () => [
    el("circle", { cx: 16, cy: 16, r: 14, fill: "#f4900c", stroke: "#a35a00", "stroke-width": 1.2 }),
    line("M7.5 10 l6 3"), line("M24.5 10 l-6 3"),
    el("circle", { cx: 11, cy: 15.5, r: 1.8, fill: DARK }), el("circle", { cx: 21, cy: 15.5, r: 1.8, fill: DARK }),
    line("M10.5 24 q5.5 -4 11 0", 2.2),
  ],
  wow: () => [
    el("circle", { cx: 16, cy: 16, r: 14, ...SKIN }),
    line("M8 9 q3 -2.5 6 -.5", 1.5), line("M18 8.5 q3 -2 6 .5", 1.5),
    el("circle", { cx: 11, cy: 13.5, r: 2.2, fill: DARK }), el("circle", { cx: 21, cy: 13.5, r: 2.2, fill: DARK }),
    el("ellipse", { cx: 16, cy: 22.5, rx: 3.5, ry: 4.2, fill: DARK }),
  ],
};

// The picture of a reaction (an <svg>, hidden from screen readers: its word goes beside it).
export function faceElement(id) {
  const svg = el("svg", { viewBox: "0 0 32 32", class: "face-svg", "aria-hidden": "true", focusable: "false" });
  for (const part of (DRAW[id] || (() => []))()) svg.appendChild(part);
  return svg;
}

export function isReaction(id) {
  return REACTIONS.includes(id);
}
