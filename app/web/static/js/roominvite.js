// Inviting friends to a private room (邀请, docs/rooms.md "Inviting"): the room's link
// (/r/<code>: the page opens on the room and seats the visitor, after sign-in or sign-up if
// need be) and a ready-to-paste text in the page's language. On a phone the system share
// sheet (navigator.share) when the browser has one, else the text is copied; the bare code
// is still copied by its own button.

import { t } from "./i18n.js";
import { h } from "./dom.js";
import { lengthText } from "./rooms.js";

export function inviteLink(code) {
  return `${location.origin}/r/${code}`;
}

// "来浙闽麻将好友房 123456（丽水 · 8 局 · 10 银两/分）一起打：https://host/r/123456"
export function inviteText(room, withLink = true) {
  const text = t("invite_text", { app: t("app_name"), code: room.code, variant: t(room.variant),
    length: lengthText(room.length), stake: room.stake });
  return withLink ? `${text}${t("invite_colon")}${inviteLink(room.code)}` : text;
}

// Copy `text`: the clipboard API on a secure page, else the old way; whether it worked.
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // the old way below
  }
  const area = h("textarea", { readonly: true, class: "sr-only", "aria-hidden": "true" }, text);
  document.body.append(area);
  area.select();
  let done = false;
  try {
    done = document.execCommand("copy");
  } catch {
    done = false;
  }
  area.remove();
  return done;
}

function phone() {
  return window.matchMedia("(pointer: coarse)").matches;
}

// Share or copy the invitation: "shared", "copied", "failed" or "cancelled".
export async function invite(room) {
  if (phone() && typeof navigator.share === "function") {
    try {
      await navigator.share({ title: t("invite_title", { code: room.code }), text: inviteText(room, false),
        url: inviteLink(room.code) });
      return "shared";
    } catch (err) {
      if (err && err.name === "AbortError") return "cancelled";
      // no share target: copy instead
    }
  }
  return (await copyText(inviteText(room))) ? "copied" : "failed";
}

// The 邀请 button; `onDone(result)` after sharing or copying (the caller says "copied").
export function inviteButton(room, { id = "room-invite", onDone = () => {}, primary = false } = {}) {
  return h("button", { type: "button", id, class: "room-invite" + (primary ? " primary" : ""),
    "aria-label": t("invite_label", { code: room.code }),
    onclick: async () => onDone(await invite(room)) }, t("invite"));
}
