"""What every translated page is checked for in the browser, in all six languages at phone and desktop width
(issue 31): the page speaks the language asked for and nothing else (no visible text equal to an English message
whose translation differs), its labels are neither clipped nor on top of each other, its charts' texts stay inside
and apart, and nothing is fetched from another host.  One page load per (page, language, width).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator

from dashboard.core import text
from support.browser import CHART_TEXT_PROBLEMS, PageRecorder, visitor_options

#: A phone (is_mobile) and a desktop.
SIZES = ({"width": 390, "height": 844}, {"width": 1440, "height": 900})

#: Text that overflows its box (a label cut off), or two labels of one row on top of each other.
LAYOUT_PROBLEMS = r"""() => {
  const out = [];
  const shown = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && !el.closest("details:not([open]) > :not(summary)"); };
  const labels = document.querySelectorAll(
    "button, label, summary, h1, h2, .nav-link, .lang-link, .field-label, .card-title, .card-value, .tab-button, "
    + ".Select-placeholder, .Select-value-label, .dash-dropdown-placeholder, th");
  labels.forEach((el) => {
    if (!shown(el) || !el.textContent.trim() || el.closest(".visually-hidden")) return;
    const s = getComputedStyle(el);
    const clips = ["hidden", "clip"].includes(s.overflowX) || s.textOverflow === "ellipsis";
    if (clips && el.scrollWidth > el.clientWidth + 1) out.push(`clipped: "${el.textContent.trim().slice(0, 50)}" (${el.scrollWidth} > ${el.clientWidth} px)`);
  });
  document.querySelectorAll(".card").forEach((el) => {  // a long word running out of its card (not clipped: spilled)
    if (shown(el) && el.scrollWidth > el.clientWidth + 1) out.push(`runs out of its card: "${el.textContent.trim().slice(0, 50)}" (${el.scrollWidth} > ${el.clientWidth} px)`);
  });
  const rows = document.querySelectorAll(".buttons, .tab-list, .row2, .row3, .lang-switch, .radio");
  const inter = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  rows.forEach((row) => {
    const kids = Array.from(row.children).filter(shown);
    for (let i = 0; i < kids.length; i++) for (let j = i + 1; j < kids.length; j++)
      if (inter(kids[i].getBoundingClientRect(), kids[j].getBoundingClientRect()))
        out.push(`overlap: "${kids[i].textContent.trim().slice(0, 30)}" and "${kids[j].textContent.trim().slice(0, 30)}"`);
  });
  // a phone context widens its window with wider content (innerWidth grows), so the screen's width is the measure
  const width = Math.min(window.innerWidth, screen.width);
  if (document.documentElement.scrollWidth > width + 1)
    out.push(`the page is ${document.documentElement.scrollWidth} px wide in a ${width} px window`);
  return out;
}"""

#: The presenter toggle's label, whole and on screen (issue 28: "Präsentatio…" ran out of its 6.5em box at 390 px in
#: German and Italian): neither wider than its button nor outside the window.
TOGGLE_CLIPPED = r"""() => {
  const t = document.querySelector(".navbar .presenter-toggle"), r = t.getBoundingClientRect();
  const out = [];
  if (t.scrollWidth > t.clientWidth) out.push(`its text is ${t.scrollWidth} px in a ${t.clientWidth} px button`);
  if (r.left < 0 || r.right > window.innerWidth || r.top < 0) out.push(`it lies at ${Math.round(r.left)}–${Math.round(r.right)} px in a ${window.innerWidth} px window`);
  return out.map((p) => `presenter toggle "${t.textContent.trim()}": ${p}`);
}"""

#: Visible text nodes (outside quoted English, marked lang="en", and the language switch) equal to one of ``words``.
UNTRANSLATED = r"""(words) => {
  const set = new Set(words), out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let n;
  while ((n = walker.nextNode())) {
    const t = n.textContent.trim(), el = n.parentElement;
    if (!t || !el || !set.has(t) || el.closest('script, style, [lang="en"], .lang-switch')) continue;
    if (getComputedStyle(el).fontSize === "0px") continue;  // replaced by a translated ::after (DataTable's "Export")
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) out.push(t);
  }
  document.querySelectorAll(".js-plotly-plot text").forEach((e) => { const t = e.textContent.trim(); if (set.has(t)) out.push(`chart: ${t}`); });
  return out;
}"""


def english_words(lang: str) -> list[str]:
    """The English messages (without placeholders) whose translation in ``lang`` differs: must not be seen."""
    catalog = text.translations(lang)._catalog  # noqa: SLF001 - gettext's own msgid → msgstr table
    out = []
    for key, value in catalog.items():
        msgid = key[0] if isinstance(key, tuple) else key
        msgid = msgid.split("\x04", 1)[-1]
        if msgid and "{" not in msgid and len(msgid) > 2 and value != msgid and not isinstance(key, tuple):
            out.append(msgid.strip())
    return out


def page_problems(rec, where: str, words: list[str]) -> list[str]:
    """What every translated page is checked for: clipped or overlapping labels, chart texts outside or on top of
    each other, English words whose translation differs, console errors and requests to another host."""
    pg = rec.page
    return ([f"{where}: {p}" for p in pg.evaluate(LAYOUT_PROBLEMS)]
            + [f"{where}: {p}" for p in pg.evaluate(CHART_TEXT_PROBLEMS)]
            + [f"{where}: untranslated {p!r}" for p in pg.evaluate(UNTRANSLATED, words)]
            + [f"{where}: console {e}" for e in rec.console_errors]
            + [f"{where}: fetched {u}" for u in rec.foreign_requests()])


def each_language_and_width(visitors, app_url, page: str, path: str, ready: Callable, timeout_ms: int = 60_000
                            ) -> Iterator[tuple[str, dict, PageRecorder, str, list[str]]]:
    """Opens ``path`` (``{lang}`` filled in) in every language at phone and desktop width, waits with
    ``ready(pg, size)`` and yields ``(lang, size, recorder, where, english words)``.

    Each (language, width) is a fresh tab of the session's shared context at that width (``visitors``:
    ``support.browser.Visitors``), so its recorder holds that language's document alone, and the loads share the
    context's HTTP and code caches as one visitor's do.  (A tab going to each language in turn through
    ``about:blank`` started a new renderer per language: ~1 s more of Chromium CPU per load; issue 25.)"""
    for size in SIZES:
        for lang in text.LANGUAGES:
            words = english_words(lang) if lang != "en" else []
            rec = visitors.tab(timeout_ms, **visitor_options(size))
            try:
                rec.page.goto(app_url.url + path.format(lang=lang))
                ready(rec.page, size)
                yield lang, size, rec, f"{page} {lang} {size['width']}px", words
            finally:
                rec.page.close()


def column_headings(pg, selector: str) -> list[str]:
    """The visible texts of the table headings ``selector`` matches, stripped."""
    return [t.strip() for t in pg.locator(selector).all_inner_texts()]


def heading_problems(pg, lang: str, where: str, heading: str) -> list[str]:
    """The page's ``<html lang>`` is the language asked for and its ``h1`` reads ``heading``."""
    out = []
    if pg.get_attribute("html", "lang") != lang:
        out.append(f"{where}: <html lang> is {pg.get_attribute('html', 'lang')}")
    if pg.inner_text("h1").strip() != heading:
        out.append(f"{where}: heading {pg.inner_text('h1')!r}")
    return out
