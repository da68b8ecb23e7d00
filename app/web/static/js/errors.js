// A failed call in the player's language: the server's stable error code (app/api/errors.py)
// picks the sentence, its details fill it in; the server's English message is never shown in
// a Chinese page. A failed fetch (no network) has its own sentence.

import { ApiError } from "./api.js";
import { fmt } from "./dom.js";
import { currentLang, hasLabel, t } from "./i18n.js";

// The field a validation error names (its `loc` ends with the field), if we have a label for it.
function fieldOf(details) {
  if (!Array.isArray(details)) return null;
  for (const d of details) {
    const loc = Array.isArray(d && d.loc) ? d.loc : [];
    const name = loc[loc.length - 1];
    if (typeof name === "string" && hasLabel(`field_${name}`)) return t(`field_${name}`);
  }
  return null;
}

// The sentence for a stable error code, REST's or the table socket's (one table of both).
export function codeText(code, details = null) {
  const d = details && typeof details === "object" ? details : {};
  return t(`err_${hasLabel(`err_${code}`) ? code : "unknown"}`, {
    needed: d.needed !== undefined ? fmt(d.needed) : "",
    seconds: d.retry_after !== undefined ? Math.ceil(Number(d.retry_after)) : 1,
  });
}

export function errorText(err) {
  if (err instanceof ApiError) {
    if (!hasLabel(`err_${err.code}`)) return currentLang() === "en" && err.message ? err.message : t("err_unknown");
    const text = codeText(err.code, err.details);
    const field = err.code === "validation_error" ? fieldOf(err.details) : null;
    return field ? `${text} (${field})` : text;
  }
  if (err instanceof TypeError) return t("err_network"); // fetch() failed: no answer at all
  return t("err_unknown");
}

// Put the error's sentence in `el` (a role=alert element) and keep the code for tests and
// support in a data attribute, not in the text.
export function showErrorIn(el, err) {
  el.textContent = errorText(err);
  el.dataset.code = err instanceof ApiError ? err.code : "client";
  if (!(err instanceof ApiError)) console.error(err);
}
