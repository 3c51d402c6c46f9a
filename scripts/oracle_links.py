"""Rebuild the Chromium expectations of the links table's URL-valued attributes.

Runs the oracle (``../shared/oracle``, a headless Chromium) on the 181 article pages, on the
hand-made cases of ``tests/fixtures/links/cases/`` (``<base>``, legacy encodings, odd white
space) and on the WPT ``srcset`` cases, and asks the page itself, in tree order, for every
URL-valued attribute of :mod:`pipeline.extract.url_attributes`' table:

- where Chromium has an IDL attribute that resolves the URL, its value (``a.href``,
  ``img.src``, ``form.action``, ``button.formAction``, ``video.poster``, ``object.data``,
  ``q.cite``, ``img.longDesc``, ``base.href``, ...); ``background`` through the computed
  ``background-image`` Chromium maps it to;
- otherwise (``srcset`` candidates, ``ping`` and ``itemtype`` tokens, ``itemid``,
  ``manifest``, elements outside the HTML namespace) the URL as an ``a`` element of the
  page resolves it (``a.href``: encoding-parsed with the document's encoding, as the IDL
  attributes do; ``new URL(x, document.baseURI)`` would encode the query in UTF-8).
  ``srcset`` values are split by the HTML Standard's algorithm, written in JavaScript below
  from the spec's steps.

A URL that does not parse is ``null``. Chromium may load an ``http:`` page over
``https:`` (its HTTPS upgrades): the document's URL it ends up with is recorded beside
each page (``document_url``), and is the record URL the tests extract with. Writes ``tests/fixtures/links/chromium-attributes.json``:
per article page the row count, failures and a SHA-256 of its rows (the page text stays in
the corpus); per hand-made case every row. And ``srcset-chromium.json``: each WPT srcset
answered by ``img.currentSrc``.

    .venv/bin/python scripts/oracle_links.py [--tabs 2] [--only cases]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.extract.url_attributes import (  # noqa: E402
    ELEMENT_ATTRIBUTES,
    EMPTY_KEPT,
    GLOBAL_ATTRIBUTES,
    SPACE_SEPARATED,
    SRCSET,
)

SHARED = ROOT.parent / "shared"
ORACLE = SHARED / "oracle" / "oracle.py"
CORPUS = SHARED / "corpus" / "article-extraction"
FIXTURES = ROOT / "tests" / "fixtures" / "links"
CASES = FIXTURES / "cases"
#: How each hand-made case is served: URL and Content-Type (None: no header).
CASE_SERVED = {
    "base-relative_utf-8.html": ("https://www.example.co.uk/news/2019/story.html?id=7#c", "text/html"),
    "legacy-windows-1252.html": ("https://shop.example.de/katalog/seite.html", None),
    "legacy-shift_jis.html": ("https://www.example.jp/index.html", "text/html"),
    "whitespace-and-controls_utf-8.html": ("https://h.example.com/a/b/c.html", "text/html; charset=utf-8"),
}
#: IDL attributes that return the resolved URL (HTML Standard "reflect" with a URL), by
#: element and content attribute.
IDL = {("a", "href"): "href", ("area", "href"): "href", ("link", "href"): "href",
       ("base", "href"): "href", ("form", "action"): "action", ("button", "formaction"): "formAction",
       ("input", "formaction"): "formAction", ("video", "poster"): "poster", ("object", "data"): "data",
       ("blockquote", "cite"): "cite", ("q", "cite"): "cite", ("del", "cite"): "cite",
       ("ins", "cite"): "cite", ("img", "longdesc"): "longDesc", ("iframe", "longdesc"): "longDesc",
       ("frame", "longdesc"): "longDesc"}
IDL.update({(tag, "src"): "src" for tag in ("img", "script", "iframe", "frame", "embed", "audio",
                                             "video", "source", "track", "input")})

_JS = r"""
(() => {
  const T = __TABLE__, G = __GLOBAL__, KEEP = new Set(__KEEP__), IDL = __IDL__;
  const WS = '\t\n\f\r ';
  const resolveA = (v) => {
    if (!URL.canParse(v.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, ''), document.baseURI)) return null;
    const a = document.createElement('a'); a.setAttribute('href', v); return a.href;
  };
  // HTML Standard "parse a srcset attribute": the URLs of the candidates it accepts.
  const srcset = (s) => {
    const out = []; let p = 0; const n = s.length;
    const isWS = (c) => WS.includes(c);
    for (;;) {
      while (p < n && (isWS(s[p]) || s[p] === ',')) p++;
      if (p >= n) return out;
      let st = p; while (p < n && !isWS(s[p])) p++;
      let url = s.slice(st, p); const d = [];
      if (url.endsWith(',')) { url = url.replace(/,+$/, ''); }
      else {
        while (p < n && isWS(s[p])) p++;
        let cur = '', state = 'in';
        for (;;) {
          const c = p < n ? s[p] : '';
          if (state === 'in') {
            if (c !== '' && isWS(c)) { if (cur) { d.push(cur); cur = ''; state = 'after'; } }
            else if (c === ',') { p++; if (cur) d.push(cur); break; }
            else if (c === '(') { cur += c; state = 'paren'; }
            else if (c === '') { if (cur) d.push(cur); break; }
            else cur += c;
          } else if (state === 'paren') {
            if (c === ')') { cur += c; state = 'in'; }
            else if (c === '') { d.push(cur); break; }
            else cur += c;
          } else {
            if (c === '') break;
            if (!isWS(c)) { state = 'in'; p--; }
          }
          p++;
        }
      }
      let w = false, x = false, h = false, err = false;
      for (const t of d) {
        if (/^[0-9]+w$/.test(t)) { if (w || x || parseInt(t) === 0) err = true; w = true; }
        else if (/^-?([0-9]+(\.[0-9]+)?|\.[0-9]+)([eE][-+]?[0-9]+)?x$/.test(t)) {
          if (w || x || h || parseFloat(t) < 0) err = true; x = true; }
        else if (/^[0-9]+h$/.test(t)) { if (h || x || parseInt(t) === 0) err = true; h = true; }
        else err = true;
      }
      if (h && !w) err = true;
      if (!err && url) out.push(url);
    }
  };
  const one = (el, tag, attr, v) => {
    const name = IDL[tag + ' ' + attr];
    if (attr === 'background') {
      const bg = getComputedStyle(el).backgroundImage;
      const m = /^url\("(.*)"\)$/.exec(bg);
      if (m) return m[1].replace(/\\(.)/g, '$1');
      return resolveA(v);
    }
    if (name && el instanceof HTMLElement && typeof el[name] === 'string') {
      const base = tag === 'base' ? document.URL : document.baseURI;
      const parses = ((attr === 'action' || attr === 'formaction') && v === '') ||
        URL.canParse(v.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, ''), base);
      return parses ? el[name] : null;
    }
    return resolveA(v);
  };
  const out = [];
  for (const el of document.querySelectorAll('*')) {
    const tag = el.localName;
    for (const [attr, form] of [...(T[tag] || []), ...G]) {
      if (!el.hasAttribute(attr)) continue;
      const v = el.getAttribute(attr);
      const blank = [...v].every((c) => WS.includes(c));
      if (!KEEP.has(attr) && blank) continue;
      if (tag === 'input' && attr === 'src' && (el.getAttribute('type') || '').toLowerCase() !== 'image') continue;
      if (form === 0) out.push([tag, attr, one(el, tag, attr, v)]);
      else {
        const tokens = form === 2 ? srcset(v) : v.split(/[\t\n\f\r ]+/).filter(Boolean);
        for (const t of tokens) out.push([tag, attr, resolveA(t)]);
      }
    }
  }
  return out;
})()
"""


def eval_expression() -> str:
    """The JavaScript the oracle evaluates in each page, with the project's tables in it."""
    table = {tag: [[attr, form] for attr, _, form in entries] for tag, entries in ELEMENT_ATTRIBUTES.items()}
    glob = [[attr, form] for attr, _, form in GLOBAL_ATTRIBUTES]
    assert (SPACE_SEPARATED, SRCSET) == (1, 2)
    idl = {f"{tag} {attr}": name for (tag, attr), name in IDL.items()}
    return (_JS.replace("__TABLE__", json.dumps(table)).replace("__GLOBAL__", json.dumps(glob))
            .replace("__KEEP__", json.dumps(sorted(EMPTY_KEPT))).replace("__IDL__", json.dumps(idl)))


def rows_digest(rows: list[list[str | None]]) -> str:
    """SHA-256 of the rows' canonical JSON (compact, UTF-8)."""
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()


def _oracle(manifest: list[dict[str, object]], work: Path, expression: str, tabs: int) -> dict[str, dict]:
    cases = work / "cases.jsonl"
    cases.write_text("".join(json.dumps(case) + "\n" for case in manifest), "utf-8")
    out = work / "out.jsonl"
    subprocess.run([sys.executable, str(ORACLE), "pages", str(cases), "-o", str(out), "--tabs", str(tabs),
                    "--eval", expression], check=True)
    found = {}
    for line in out.read_text("utf-8").splitlines():
        record = json.loads(line)
        found[record["id"]] = record
    meta = json.loads(Path(str(out) + ".meta.json").read_text("utf-8"))
    found["_meta"] = meta
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tabs", type=int, default=2)
    args = parser.parse_args()
    expression = eval_expression()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        manifest: list[dict[str, object]] = []
        truth = json.loads((CORPUS / "ground-truth.json").read_text("utf-8"))
        for page_id in sorted(truth):
            body = work / f"{page_id}.html"
            body.write_bytes(gzip.decompress((CORPUS / "html" / f"{page_id}.html.gz").read_bytes()))
            manifest.append({"id": page_id, "url": truth[page_id]["url"],
                             "content_type": "text/html; charset=utf-8", "body": body.name})
        for name, (url, content_type) in CASE_SERVED.items():
            manifest.append({"id": name, "url": url, "content_type": content_type,
                             "body": str(CASES / name)})
        found = _oracle(manifest, work, expression, args.tabs)
        srcset = json.loads((FIXTURES / "srcset-chromium.json").read_text("utf-8"))
        page = "<!doctype html><meta charset=utf-8><body>" + "".join(
            "<img srcset=\"" + "".join(f"&#x{ord(c):x};" if c in "&\"\u00a0" or c < " " else c
                                       for c in value) + "\">"
            for value, _ in srcset["cases"])
        (work / "srcset.html").write_text(page, "utf-8")
        answered = _oracle([{"id": "srcset", "url": srcset["page_url"], "content_type": "text/html",
                             "body": "srcset.html"}], work, "[...document.images].map(i => i.currentSrc)",
                           1)["srcset"]["eval"]
    meta = found.pop("_meta")
    pages, cases = {}, {}
    for case_id, record in sorted(found.items()):
        rows = record["eval"]
        if case_id in CASE_SERVED:
            url, content_type = CASE_SERVED[case_id]
            cases[case_id] = {"url": url, "document_url": record["final_url"], "content_type": content_type,
                              "encoding": record["characterSet"], "rows": rows}
        else:
            pages[case_id] = {"document_url": record["final_url"], "encoding": record["characterSet"],
                              "rows": len(rows),
                              "failed": sum(1 for row in rows if row[2] is None), "sha256": rows_digest(rows)}
    (FIXTURES / "chromium-attributes.json").write_text(json.dumps(
        {"chromium": meta["chromium"], "pages": pages, "cases": cases}, ensure_ascii=False, indent=1) + "\n",
        "utf-8")
    srcset["cases"] = [[value, current] for (value, _), current in zip(srcset["cases"], answered, strict=True)]
    srcset["chromium"] = meta["chromium"]
    (FIXTURES / "srcset-chromium.json").write_text(json.dumps(srcset, ensure_ascii=False, indent=0) + "\n",
                                                    "utf-8")
    print(f"{len(pages)} pages, {len(cases)} cases, {len(answered)} srcset values ({meta['chromium']})")


if __name__ == "__main__":
    main()
