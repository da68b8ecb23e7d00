// Tiles: notation codes (1m-9m 万, 1p-9p 筒, 1s-9s 条, 1z-7z 东南西北白发中, 1f-8f 春夏秋冬梅兰竹菊),
// their names in both languages, the hand order (wilds first) and an SVG drawing per tile.

import { currentLang } from "./i18n.js";

const NUMERALS = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九"];
const SUIT_ZH = { m: "万", p: "筒", s: "条" };
const SUIT_EN = { m: "Character", p: "Dot", s: "Bamboo" };  // one tile: "the wild is 1 Character"
const HONOURS_ZH = ["", "东", "南", "西", "北", "白", "发", "中"];
const HONOURS_EN = ["", "East Wind", "South Wind", "West Wind", "North Wind", "White Dragon",
  "Green Dragon", "Red Dragon"];
const FLOWERS_ZH = ["", "春", "夏", "秋", "冬", "梅", "兰", "竹", "菊"];
const FLOWERS_EN = ["", "Spring", "Summer", "Autumn", "Winter", "Plum", "Orchid", "Bamboo Flower",
  "Chrysanthemum"];
const SUIT_ORDER = { m: 0, p: 1, s: 2, z: 3, f: 4 };
const COLOURS = { m: "#b3261e", p: "#1d4e89", s: "#1b6e3a", z: "#222", f: "#7a3e9d" };
const HONOUR_COLOURS = ["", "#222", "#222", "#222", "#222", "#1d4e89", "#1b6e3a", "#b3261e"];

export function parse(code) {
  return { n: Number(code[0]), suit: code[1] };
}

export function tileName(code, lang = currentLang()) {
  const { n, suit } = parse(code);
  if (lang === "zh") {
    if (suit === "z") return HONOURS_ZH[n];
    if (suit === "f") return FLOWERS_ZH[n];
    return NUMERALS[n] + SUIT_ZH[suit];
  }
  if (suit === "z") return HONOURS_EN[n];
  if (suit === "f") return FLOWERS_EN[n];
  return `${n} ${SUIT_EN[suit]}`;
}

// The face: big mark and small suit mark, e.g. ["5", "万"] or ["中", ""].
function face(code) {
  const { n, suit } = parse(code);
  if (suit === "z") return [HONOURS_ZH[n], ""];
  if (suit === "f") return [FLOWERS_ZH[n], String(n <= 4 ? n : n - 4)];
  return [String(n), SUIT_ZH[suit]];
}

export function sortKey(code, wild) {
  const { n, suit } = parse(code);
  const first = wild && code === wild ? 0 : 1;
  return first * 1000 + SUIT_ORDER[suit] * 10 + n;
}

// The hand in play order: wilds first (丽水 keeps its 财神 at the left), then 万 筒 条 字 花.
export function sortHand(tiles, wild) {
  return [...tiles].sort((a, b) => sortKey(a, wild) - sortKey(b, wild));
}

export function removeOne(tiles, code) {
  const i = tiles.indexOf(code);
  if (i >= 0) tiles.splice(i, 1);
  return i >= 0;
}

const SVG_NS = "http://www.w3.org/2000/svg";

function svgEl(name, attrs) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

// One tile drawn as SVG (null code: face down). `wild` / `substitute` mark a 财神 and the
// tile that plays as its face; `turned` lays it on its side (a claimed tile in a meld). The
// suit character is nearly as large as the numeral, so suits read without their colour.
export function tileSvg(code, { wild = false, substitute = false, turned = false } = {}) {
  const svg = svgEl("svg", { viewBox: turned ? "0 0 40 30" : "0 0 30 40", class: "tile-svg",
    "aria-hidden": "true", focusable: "false" });
  const g = turned ? svgEl("g", { transform: "translate(0,30) rotate(-90)" }) : svg;
  if (turned) svg.appendChild(g);
  g.appendChild(svgEl("rect", { x: 1, y: 1, width: 28, height: 38, rx: 4,
    class: code ? "tile-face" : "tile-back" }));
  if (!code) return svg;
  const [big, small] = face(code);
  const { n, suit } = parse(code);
  const colour = suit === "z" ? HONOUR_COLOURS[n] : COLOURS[suit];
  if (code === "5z") {
    g.appendChild(svgEl("rect", { x: 7, y: 8, width: 16, height: 22, rx: 2, fill: "none",
      stroke: colour, "stroke-width": 2.5 }));
  } else {
    const main = svgEl("text", { x: 15, y: small ? 19 : 27, "text-anchor": "middle",
      "font-size": small ? 18 : 20, "font-weight": 700, fill: colour, class: "tile-text" });
    main.textContent = big;
    g.appendChild(main);
  }
  if (small) {
    const sub = svgEl("text", { x: 15, y: 36, "text-anchor": "middle",
      "font-size": suit === "f" ? 11 : 15, "font-weight": 700, fill: colour, class: "tile-text" });
    sub.textContent = small;
    g.appendChild(sub);
  }
  if (wild || substitute) {
    g.appendChild(svgEl("circle", { cx: 24, cy: 6, r: 4.5, class: wild ? "wild-dot" : "sub-dot" }));
  }
  return svg;
}

// A tile as an inline element (span) or a button, with a readable label.
// `wildName`: what the variant calls its wild (财神, 百搭, 金).
export function tileElement(code, opts = {}) {
  const { button = false, wild = false, substitute = false, label = null, small = false,
    turned = false, wildName = null } = opts;
  const el = document.createElement(button ? "button" : "span");
  el.className = "tile" + (small ? " small" : "") + (wild ? " wild" : "") +
    (substitute ? " substitute" : "") + (turned ? " turned" : "");
  if (button) el.type = "button";
  if (code) el.dataset.tile = code;
  el.appendChild(tileSvg(code, { wild, substitute, turned }));
  const name = code ? tileName(code) : (currentLang() === "zh" ? "暗牌" : "face down");
  const marks = [];
  if (wild) marks.push(wildName ?? (currentLang() === "zh" ? "财神" : "wild"));
  if (substitute) marks.push(currentLang() === "zh" ? "替身" : "plays as the wild's face");
  const text = label ?? (marks.length ? `${name} (${marks.join(", ")})` : name);
  el.setAttribute(button ? "aria-label" : "title", text);
  if (!button) {
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", text);
  }
  return el;
}

export function runOf(low) {
  const { n, suit } = parse(low);
  return [0, 1, 2].map((i) => `${n + i}${suit}`);
}
