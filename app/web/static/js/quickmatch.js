// Quick match (快速开始) in the lobby (docs/client.md, "Quick match"): pick a variant, then a
// button per level (初级场, 中级场, 高级场: the stake and the silver it needs; greyed, with the
// reason, when the player's silver is short). While queued, a panel says the seconds waited,
// the place in the queue, the seconds until house bots fill the table (or why they cannot
// yet) and offers to cancel. The level last played (else the lowest the player can afford) is
// the big primary button: one tap plays as last time. The server seats only players with a table socket open, so the
// card keeps one open while queued; the table opens when its `seated` arrives (or when
// GET /quick-match, read every 2 s, says seated). A reload finds the queue again.

import { api, ApiError, refreshTokens, session } from "./api.js";
import { fmt, h } from "./dom.js";
import { showErrorIn } from "./errors.js";
import { currentLang, t } from "./i18n.js";
import { ProtocolClient } from "../kit/protocol.js";
import { howToWinButton } from "./howtowin.js";
import { botLevelName } from "./botlevel.js";

const STATUS_MS = 2000; // GET /quick-match while queued
const LEVELS_MS = 5000; // GET /quick-match/levels (who waits where) while the card shows
const TICK_MS = 250; // the panel's clocks, counted here between reads
const VARIANT_KEY = "quick_variant"; // the variant last picked, kept across visits
const LEVEL_KEY = "quick_level"; // the level last played, kept across visits: the card's default
const NOW_KEY = "quick_now"; // sessionStorage: queue at the default level at once (guide.js)

function levelName(level) {
  return currentLang() === "zh" ? level.name_zh : level.name_en;
}

// The card, drawn at once and filled as the server answers. It stops by itself (timers
// and socket) once it is no longer in the page.
export function quickMatchCard({ me, variants }) {
  const error = h("p", { class: "form-error", role: "alert", id: "quick-error" });
  const variant = h("select", { id: "quick-variant", name: "quick-variant" },
    variants.map((v) => h("option", { value: v }, t(v))));
  const saved = localStorage.getItem(VARIANT_KEY);
  if (variants.includes(saved)) variant.value = saved;
  const levelsList = h("ul", { class: "quick-levels", id: "quick-levels" });
  const panel = h("div", { class: "quick-panel", id: "quick-panel", hidden: true,
    "aria-live": "polite" });
  const card = h("section", { class: "card quick-card", id: "quick-card",
    "aria-labelledby": "quick-title" },
  h("div", { class: "row quick-head" },
    h("h2", { id: "quick-title" }, t("qm_title")),
    h("label", { for: "quick-variant", class: "inline-label" }, t("variant")), variant,
    // 玩法 on the first screen: how the variant picked here wins, before choosing a level
    howToWinButton("quick-how-to-win", () => variant.value)),
  levelsList, panel, error);

  let levels = [];
  let status = null; // the last GET /quick-match, and when it was read
  let readAt = 0;
  let queuedBefore = false; // this page queued, or found the player queued: a `seated` is ours
  let client = null; // the table socket, open while queued
  let leaving = false; // the table opens: stop everything
  const timers = [];

  function stop() {
    timers.forEach(clearInterval);
    timers.length = 0;
    if (client) client.close();
    client = null;
  }

  function openTable(tableId) {
    if (leaving) return;
    leaving = true;
    stop();
    location.hash = `#/table/${tableId}`;
  }

  function socket(on) {
    if (on && !client) {
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      client = new ProtocolClient({
        url: `${scheme}://${location.host}/ws`,
        token: () => session.access,
        refresh: refreshTokens,
        onSeated: (m) => openTable(m.table_id),
      });
      client.connect();
    } else if (!on && client) {
      client.close();
      client = null;
    }
  }

  // The default level: the one last played while the player can afford it, else the lowest
  // they can afford.
  function chosenLevel() {
    const affordable = levels.filter((x) => me.balance >= x.min_balance);
    const saved = affordable.find((x) => x.key === localStorage.getItem(LEVEL_KEY));
    return (saved ?? affordable[0] ?? null)?.key ?? null;
  }

  function levelItem(level, chosen) {
    const short = me.balance < level.min_balance;
    const waiting = level.waiting[variant.value] ?? 0;
    const queuedHere = status && ["queued", "matching"].includes(status.state) &&
      status.variant === variant.value && status.level === level.key;
    const noteId = `quick-note-${level.key}`;
    const main = queuedHere || (!queued() && level.key === chosen);
    return h("li", { class: "quick-level" + (short ? " short" : "") + (level.key === chosen ? " chosen" : ""),
      dataset: { level: level.key } },
      h("button", {
        type: "button", class: "quick-start" + (main ? " primary" : ""),
        dataset: { level: level.key }, disabled: short || queuedHere,
        "aria-describedby": noteId,
        onclick: () => join(level),
      },
      h("strong", { class: "quick-name" }, levelName(level)),
      h("span", { class: "quick-stake" }, t("qm_stake", { stake: fmt(level.stake) })),
      h("span", { class: "quick-min" }, t("qm_min", { n: fmt(level.min_balance) }))),
      h("p", { class: "quick-note", id: noteId },
        short ? t("qm_short", { n: fmt(level.min_balance), balance: fmt(me.balance) })
          : t("qm_waiting_n", { n: waiting }),
        // the operator's choice of who plays the bots that may fill its tables
        h("span", { class: "quick-bots" }, ` · ${t("lobby_bot_level", { level: botLevelName(level.bot_level) })}`)));
  }

  function queued() {
    return Boolean(status && ["queued", "matching"].includes(status.state));
  }

  function drawLevels() {
    const chosen = chosenLevel();
    levelsList.replaceChildren(...levels.map((level) => levelItem(level, chosen)));
  }

  function seconds(value) {
    return Math.max(0, Math.round(value));
  }

  function drawPanel() {
    const queued = status && ["queued", "matching"].includes(status.state);
    panel.hidden = !queued;
    card.classList.toggle("queued", Boolean(queued));
    if (!queued) {
      panel.replaceChildren();
      return;
    }
    const gone = (performance.now() - readAt) / 1000;
    const level = levels.find((x) => x.key === status.level);
    const where = t("qm_searching", { variant: t(status.variant),
      level: level ? levelName(level) : status.level });
    const lines = [h("p", { class: "quick-where" }, h("strong", {}, where))];
    if (status.state === "matching") {
      lines.push(h("p", { class: "quick-matching" }, t("qm_matching")));
    } else {
      lines.push(h("p", { class: "quick-clock" },
        h("span", { id: "quick-waited" }, t("qm_waited", { s: seconds((status.waited_seconds ?? 0) + gone) })),
        " · ",
        h("span", { id: "quick-place" }, t("qm_place", { n: status.position ?? "–", total: status.waiting }))));
      const botsIn = status.bots_in_seconds === null ? null : status.bots_in_seconds - gone;
      let bots;
      if (status.reason) bots = t(`qm_reason_${status.reason}`);
      else if (botsIn !== null && botsIn > 0.5) bots = t("qm_bots_in", { s: seconds(botsIn) });
      else bots = t("qm_bots_now");
      lines.push(h("p", { class: "quick-bots" + (status.reason ? " short" : ""), id: "quick-bots",
        dataset: { reason: status.reason ?? "" } }, bots));
    }
    lines.push(h("button", { type: "button", id: "quick-cancel", onclick: cancel,
      disabled: status.state === "matching" }, t("qm_cancel")));
    panel.replaceChildren(...lines);
  }

  function take(found) {
    status = found;
    readAt = performance.now();
    if (found.state === "seated" && found.table_id && queuedBefore) {
      openTable(found.table_id);
      return;
    }
    const queued = ["queued", "matching"].includes(found.state);
    queuedBefore = queuedBefore || queued;
    if (!queued && found.reason && queuedBefore) {
      error.textContent = t(`qm_reason_${found.reason}`);
      error.dataset.code = found.reason;
    }
    if (!queued) queuedBefore = false;
    socket(queued);
    if (queued && variant.value !== found.variant) variant.value = found.variant;
    drawPanel();
    drawLevels();
  }
  async function readStatus() {
    try {
      take(await api("GET", "/quick-match"));
    } catch {
      // the next read tries again
    }
  }

  async function readLevels() {
    try {
      levels = (await api("GET", "/quick-match/levels")).levels;
    } catch (err) {
      showErrorIn(error, err);
      return;
    }
    drawLevels();
    drawPanel();
  }

  async function join(level) {
    localStorage.setItem(LEVEL_KEY, level.key);
    error.textContent = "";
    delete error.dataset.code;
    try {
      queuedBefore = true;
      take(await api("POST", "/quick-match", { variant: variant.value, level: level.key }));
      readLevels(); // the queue's count, the player included
    } catch (err) {
      queuedBefore = false;
      showErrorIn(error, err);
      if (err instanceof ApiError && err.code === "insufficient_balance") {
        try {
          Object.assign(me, await api("GET", "/me"));
          window.dispatchEvent(new CustomEvent("me-changed", { detail: me }));
        } catch {
          // the header keeps the last balance
        }
        drawLevels();
      }
    }
  }

  async function cancel() {
    error.textContent = "";
    try {
      queuedBefore = false;
      take(await api("DELETE", "/quick-match"));
      readLevels();
    } catch (err) {
      showErrorIn(error, err);
    }
  }

  variant.addEventListener("change", () => {
    localStorage.setItem(VARIANT_KEY, variant.value);
    drawLevels();
  });

  // every timer checks that the card is still in the page; gone, it stops
  const alive = (fn) => () => (document.body.contains(card) ? fn() : stop());
  timers.push(setInterval(alive(() => { if (!panel.hidden) drawPanel(); }), TICK_MS));
  timers.push(setInterval(alive(() => { if (!panel.hidden) readStatus(); }), STATUS_MS));
  timers.push(setInterval(alive(readLevels), LEVELS_MS));
  const now = sessionStorage.getItem(NOW_KEY) === "1"; // the guided hand's "play for real"
  sessionStorage.removeItem(NOW_KEY);
  readLevels().then(readStatus).then(() => {
    const level = now && !queued() ? levels.find((x) => x.key === chosenLevel()) : null;
    if (level) join(level);
  });
  return card;
}
