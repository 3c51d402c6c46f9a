"""Encoding sniffing: every step that decides which encoding a page is decoded with.

- :mod:`.bom` — Encoding Standard *BOM sniff*;
- :mod:`.prescan` — HTML *prescan a byte stream* (first 1024 bytes) and *get an XML encoding*;
- :mod:`.late_meta` — Chromium's tokenizer-based ``<meta>`` scan (late ``<meta>`` in ``<head>``);
- :mod:`.xml_declaration` — Chromium's XML declaration check in ``text/html``;
- :mod:`.lenient_meta` — malformed declarations the spec ignores (``standard``/``repair`` only);
- :mod:`.utf8` — the UTF-8 check for undeclared pages;
- :mod:`.detect` — statistical detection (chardetng, TLD hint) and what it cannot answer;
- :mod:`.ced` — Chromium's content sniffing: its detector, CED, compiled in and called as Blink
  calls it;
- :mod:`.tld_defaults` — Chromium's fallback encoding by TLD;
- :mod:`.evidence` — the findings, computed lazily and once, recorded as signals;
- :mod:`.algorithm` — the order, the three policies, the :class:`EncodingDecision`.

Accuracy is measured by ``scripts/evaluate.py`` (``../shared/corpus/chardet``) and
``scripts/browser_view.py`` (the browser view on ``tests/browser_view``).
"""
