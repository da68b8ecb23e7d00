// A small helper to build elements: h("button", {class: "x", onclick: fn}, "text", child).

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.className = value;
    } else if (key === "dataset") {
      for (const [name, data] of Object.entries(value)) {
        if (data !== null && data !== undefined) el.dataset[name] = String(data);
      }
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function fmt(n) {
  return Number(n).toLocaleString("en-US");
}

// Announce a short text to screen readers (the polite live region in index.html).
export function announce(text) {
  const region = document.getElementById("announcer");
  if (region) region.textContent = text;
}
