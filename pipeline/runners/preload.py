"""What the local pool's fork server imports once (``set_forkserver_preload``): importing
this module configures the process as a worker (:func:`~pipeline.runners.startup.start_worker`),
loads the pipeline and decodes one small page, so that every pool worker forked from the
server starts with the modules, tables and language model already loaded (shared with the
server, copy on write) instead of loading them itself.

Measured on the real-page bench crawl with two workers: each worker spent ~0.45 s of CPU
importing and loading before its first record (as much as a third of a small task), and
the run did it once per worker and once more in the main process. Only the fork server
imports this module: importing ``pipeline`` itself changes nothing in a process.
"""

from __future__ import annotations

from pipeline.runners.startup import start_worker

start_worker()  # first: it sets what numpy reads when it loads

from pipeline.encoding.decoders import (  # noqa: E402, F401 - each loaded on its first page otherwise
    cjk_chinese,
    cjk_japanese,
    cjk_korean,
    iso_2022_jp,
)
from pipeline.rules import load_rules  # noqa: E402
from pipeline.runners import task  # noqa: E402, F401 - loads the whole pipeline
from pipeline.runners.worker import process_record  # noqa: E402
from pipeline.sources.record import RawRecord  # noqa: E402

_PAGE = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<!doctype html><html><head>"
         b"<title>Warm-up</title></head><body><p>Le chat dort sur la table depuis ce matin, "
         b"et personne ne le d\xc3\xa9range.</p><a href=/x>x</a></body></html>")

# The first record loads what is loaded on first use (the language model, detectors, the
# Public Suffix List); its result is dropped.
process_record(RawRecord("warm-up", 0, len(_PAGE), "<urn:warm-up>", "response",
                         "http://warm-up.example/", None, _PAGE), load_rules(None), "warm-up")
