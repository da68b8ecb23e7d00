// The client's shell: hash routes (#/login, #/register, #/lobby, #/profile, #/leaders,
// #/table/<id>), the header, the language switch and the reconnect banner.

import { api, ApiError, session } from "./api.js";
import { clear, h } from "./dom.js";
import { renderAuth } from "./auth.js";
import { currentLang, onLangChange, setLang, t, translate } from "./i18n.js";
import { renderLeaders } from "./leaders.js";
import { renderLobby } from "./lobby.js";
import { renderProfile } from "./profile.js";
import { TableController } from "./table.js";

const main = document.getElementById("main");
const banner = document.getElementById("banner");
let table = null; // the open table's controller
let me = null;
let lobbyTimer = null; // the lobby's list is read again every few seconds while it shows
const LOBBY_REFRESH_MS = 5000;

function showMe(account) {
  document.getElementById("me-badge").textContent = `${account.username} · ${account.title} · ${account.balance}`;
}

function setBanner(state) {
  clear(banner);
  banner.hidden = !state;
  if (!state) return;
  banner.append(h("span", {}, state.text));
  if (state.action) {
    banner.append(h("button", { type: "button", id: "banner-action", onclick: state.onAction }, state.action));
  }
}

function showError(err) {
  main.append(h("p", { class: "form-error", role: "alert" },
    err instanceof ApiError ? `${err.message} (${err.code})` : String(err)));
}

async function route() {
  const hash = location.hash || "#/lobby";
  const [, page, arg] = hash.split("/");
  clearInterval(lobbyTimer);
  if (table && !(page === "table" && arg === table.tableId)) {
    table.stop();
    table = null;
  }
  document.body.classList.toggle("signed-in", Boolean(session.access));
  document.getElementById("nav").hidden = !session.access;
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
    renderAuth(main, { mode: page, onDone: () => { location.hash = "#/lobby"; } });
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
  if (page === "table" && arg) {
    if (table && table.tableId === arg) {
      table.render();
      return;
    }
    clear(main);
    table = new TableController(main, { tableId: arg, me, onBanner: setBanner });
    await table.start().catch(showError);
    return;
  }
  clear(main);
  try {
    if (page === "profile") await renderProfile(main);
    else if (page === "leaders") await renderLeaders(main);
    else {
      const tables = await api("GET", "/tables");
      const seated = tables.find((x) => x.seats.includes(me.id));
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
  main.focus();
}

function start() {
  setLang(currentLang());
  translate();
  const langButton = document.getElementById("lang");
  const labelLang = () => {
    langButton.textContent = t("lang_switch");
    langButton.setAttribute("aria-label", t("lang_switch_label"));
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
