// Log in and register (登录 / 注册).

import { login, register } from "./api.js";
import { h } from "./dom.js";
import { showErrorIn } from "./errors.js";
import { t } from "./i18n.js";

export function renderAuth(main, { mode, onDone, invited = false }) {
  const isLogin = mode === "login";
  const error = h("p", { class: "form-error", role: "alert", id: "auth-error" });
  const user = h("input", { id: "auth-username", name: "username", autocomplete: "username",
    required: true, minlength: isLogin ? 1 : 3, maxlength: 32 });
  const pass = h("input", { id: "auth-password", name: "password", type: "password", required: true,
    autocomplete: isLogin ? "current-password" : "new-password", minlength: isLogin ? 1 : 8, maxlength: 128 });
  const form = h("form", { class: "card auth", "aria-labelledby": "auth-title" },
    h("h1", { id: "auth-title" }, t(isLogin ? "login" : "register")),
    // came by a private room's invite link: it is taken up once signed in
    invited ? h("p", { class: "note invite-note", id: "auth-invite-note" }, t("invite_sign_in_note")) : null,
    h("label", { for: "auth-username" }, t("username")), user,
    h("label", { for: "auth-password" }, t("password")), pass,
    error,
    h("button", { type: "submit", id: "auth-submit", class: "primary" }, t(isLogin ? "login" : "register")),
    h("a", { href: isLogin ? "#/register" : "#/login", id: "auth-switch" },
      t(isLogin ? "need_account" : "have_account")));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    try {
      if (isLogin) await login(user.value.trim(), pass.value);
      else await register(user.value.trim(), pass.value);
      onDone();
    } catch (err) {
      showErrorIn(error, err);
    }
  });
  main.append(form);
  user.focus();
}
