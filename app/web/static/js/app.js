// The client's shell: hash routes (#/login, #/register, #/lobby, #/profile, #/leaders,
// #/table/<id>, #/watch/<id>[/<room code>] (旁观), #/replay/<hand id>, #/room/<code> (好友房),
// #/event/<id> (比赛场),
// #/room/<code>/join (a room's invite link, /r/<code>: sign-in or sign-up first if need be,
// then seated)), the header, the language switch and the reconnect banner.

import { api, ApiError, session } from "./api.js";
import { clear, fmt, h } from "./dom.js";
import { renderAuth } from "./auth.js";
import { errorText } from "./errors.js";
import { currentLang, onLangChange, setLang, t, translate } from "./i18n.js";
import { titleName } from "./ranks.js";
import { renderLeaders } from "./leaders.js";
import { renderLobby, seatedAt } from "./lobby.js";
import { renderProfile } from "./profile.js";
import { renderEventPage } from "./eventpage.js";
import { renderReplay } from "./replay.js";
import { renderRoomPage } from "./rooms.js";
import { rematchOnPage } from "./roomrematch.js";
import { TableController } from "./table.js";

const main = document.getElementById("main");
const banner = document.getElementById("banner");
let table = null; // the open table's controller
let me = null;
let lobbyTimer = null; // the lobby's list is read again every few seconds while it shows
const LOBBY_REFRESH_MS = 5000;
const AFTER_SIGN_IN = "zj-after-sign-in"; // an invite opened while signed out: where to go after
const INVITE = /^#\/room\/[0-9]{6}\/join$/;

// After signing in or up: the invite that brought the visitor, else the lobby.
function signedIn() {
  const next = sessionStorage.getItem(AFTER_SIGN_IN);
  sessionStorage.removeItem(AFTER_SIGN_IN);
  location.hash = next && INVITE.test(next) ? next : "#/lobby";
}

function showMe(account) {
  const badge = document.getElementById("me-badge");
  badge.replaceChildren(h("span", { class: "me-name" }, account.username),
    h("span", { class: "me-title" }, titleName(account.title)),
    h("span", { class: "me-balance", id: "me-balance", title: t("balance") },
      h("span", { class: "sr-only" }, `${t("balance")} `), fmt(account.balance)));
}

// the table's link (tablelink.js): `kind` is lost, back, replaced or kicked
function setBanner(state) {
  clear(banner);
  banner.hidden = !state;
  banner.dataset.kind = state ? state.kind || "" : "";
  if (!state) return;
  banner.append(h("span", { id: "banner-text" }, state.text));
  if (state.action) {
    banner.append(h("button", { type: "button", id: "banner-action", onclick: state.onAction }, state.action));
  }
}

function showError(err) {
  main.append(h("p", { class: "form-error", role: "alert",
    dataset: { code: err instanceof ApiError ? err.code : "client" } }, errorText(err)));
}

async function route() {
  const hash = location.hash || "#/lobby";
  const [, page, arg, extra] = hash.split("/"); // extra: a private room's code (#/watch/<id>/<code>)
  clearInterval(lobbyTimer);
  delete main.dataset.rendered; // set again once the page is drawn (tests wait on it)
  const tablePage = page === "table" || page === "watch"; // a seat's, or a spectator's
  if (table && !(tablePage && arg === table.tableId && table.spectator === (page === "watch"))) {
    table.stop();
    table = null;
  }
  document.body.classList.toggle("signed-in", Boolean(session.access));
  document.getElementById("nav").hidden = !session.access;
  if (!session.access && page === "replay" && arg) { // a public replay needs no account
    clear(main);
    await renderReplay(main, { handId: decodeURIComponent(arg), me: null });
    main.dataset.rendered = `replay:${currentLang()}`;
    return;
  }
  if (!session.access && INVITE.test(hash)) sessionStorage.setItem(AFTER_SIGN_IN, hash);
  if (!session.access && page !== "register") {
    if (page !== "login") {
      location.hash = "#/login";
      return;
    }
  }
  if (page === "login" || page === "register") {
    if (session.access) {
      location.hash = "#/lobby";
      return;
    }
    clear(main);
    renderAuth(main, { mode: page, onDone: signedIn, invited: Boolean(sessionStorage.getItem(AFTER_SIGN_IN)) });
    return;
  }
  try {
    me = await api("GET", "/me");
  } catch (err) {
    if (err instanceof ApiError && err.code === "unauthorized") {
      session.clear();
      location.hash = "#/login";
      return;
    }
    clear(main);
    showError(err);
    return;
  }
  showMe(me);
  if (tablePage && arg) {
    if (table && table.tableId === arg) {
      table.render();
      return;
    }
    clear(main);
    table = new TableController(main, { tableId: arg, me, onBanner: setBanner, watch: page === "watch",
      code: page === "watch" && /^[0-9]{6}$/.test(extra || "") ? extra : null });
    await table.start().catch(showError);
    return;
  }
  clear(main);
  try {
    if (page === "profile") await renderProfile(main);
    else if (page === "replay" && arg) await renderReplay(main, { handId: decodeURIComponent(arg), me });
    else if (page === "leaders") await renderLeaders(main, { me });
    else if (page === "event" && /^[0-9]+$/.test(arg || "")) await renderEventPage(main, { id: Number(arg), me });
    else if (page === "room" && arg) await renderRoomPage(main, { code: decodeURIComponent(arg), me, join: extra === "join",
      extra: (room) => rematchOnPage(room, me) });
    else {
      const tables = await api("GET", "/tables");
      const seated = tables.find((x) => seatedAt(x, me));
      if (seated && !sessionStorage.getItem("stay_in_lobby")) {
        // back at the table after a reload or a new visit: resume the hand in play
        sessionStorage.setItem("stay_in_lobby", "1");
        location.hash = `#/table/${seated.id}`;
        return;
      }
      const reload = await renderLobby(main, { me });
      lobbyTimer = setInterval(() => {
        if (!main.contains(document.activeElement) || document.activeElement === main ||
            document.activeElement === document.body) reload();
      }, LOBBY_REFRESH_MS);
    }
  } catch (err) {
    showError(err);
  }
  main.dataset.rendered = `${page || "lobby"}:${currentLang()}`;
  main.focus();
}

function start() {
  setLang(currentLang(), false);  // the browser's language is no choice of the player's
  translate();
  const langButton = document.getElementById("lang");
  const labelLang = () => {
    langButton.textContent = t("lang_switch");  // the other language's name, in it
    langButton.setAttribute("aria-label", t("lang_switch_label"));
    langButton.lang = currentLang() === "zh" ? "en" : "zh-CN";
    document.title = t("app_name");
  };
  labelLang();
  langButton.addEventListener("click", () => setLang(currentLang() === "zh" ? "en" : "zh"));
  onLangChange(() => {
    labelLang();
    translate();
    if (table) table.render();
    else route();
  });
  document.getElementById("logout").addEventListener("click", () => {
    if (table) table.stop();
    table = null;
    session.clear();
    location.hash = "#/login";
  });
  session.onLogout(() => { location.hash = "#/login"; });
  window.addEventListener("me-changed", (ev) => showMe(ev.detail));
  window.addEventListener("hashchange", route);
  route();
}

start();
