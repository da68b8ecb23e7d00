"""What the English client may show in Chinese, and finding what it shows beyond that.

In English every text is English. Chinese stays only where it is deliberate: a tile's face
(the tile itself, as on a real table), an element marked `lang="zh"` (a Chinese word the
page shows as such, e.g. the language button's 中文), and a gloss in parentheses after its
English name, e.g. "plain win (平胡)", which teaches the word a player hears at the table.
Attributes a screen reader or a tooltip reads (aria-label, title, placeholder) count as text.
"""

from __future__ import annotations

from typing import Any

# 丽水's deal of tests/browser/test_table.py played as 湖州: the player deals and discards 5m;
# seat 2 wins on it (123 456 789p 111z 55m) and the settlement's base names the 湖州 level
HUZHOU_WIN_ON_5M: dict[str, Any] = {
    "variant": "huzhou",
    "stake": 1,
    "dealer": 0,
    "hands": ["566778899m11s667z", "13579m2468s3344z", "123456789p111z5m", "234567s234m222z5m"],
    "indicator": "9s",
}

# the leaks on the page: each a text (or attribute) with Chinese outside what is allowed,
# with the id or class of its element
LEAKS = r"""() => {
  const CJK = /[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/;
  const GLOSS = /([A-Za-z][^()（）]*?)\s*\([\u3400-\u9fff·/\s]+\)/g;  // "English (中文)"
  const kept = (el) => el.closest('.tile, svg, [lang^="zh"], script, style, noscript');
  const where = (el) => el.id ? `#${el.id}` : `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}`;
  const leak = (text) => CJK.test(text.replace(GLOSS, "$1"));
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || kept(el) || !leak(n.data)) continue;
    const line = el.closest("li, tr, p, dd, div, label, button") ?? el;
    out.push(`${where(el)}: ${n.data.trim()} | ${line.textContent.trim().slice(0, 120)}`);
  }
  for (const el of document.body.querySelectorAll("[aria-label], [title], [placeholder]")) {
    if (kept(el)) continue;
    for (const name of ["aria-label", "title", "placeholder"]) {
      const text = el.getAttribute(name);
      if (text && leak(text)) out.push(`${where(el)}[${name}]: ${text}`);
    }
  }
  return out;
}"""
