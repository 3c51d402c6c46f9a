"""A real HTTP server on loopback for the tests: serves a folder with byte ranges (as Common
Crawl's https://data.commoncrawl.org/ does), and answers only requests that carry the
right ``?token=`` query, as a presigned URL's signature is checked."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit


def _handler(root: Path, token: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

        def _target(self) -> Path | None:
            url = urlsplit(self.path)
            if parse_qs(url.query).get("token") != [token]:
                self.send_error(403, "bad token")
                return None
            path = (root / url.path.lstrip("/")).resolve()
            if root.resolve() not in path.parents or not path.is_file():
                self.send_error(404)
                return None
            return path

        def do_HEAD(self) -> None:  # noqa: N802 - the http.server protocol
            path = self._target()
            if path is not None:
                self.send_response(200)
                self.send_header("Content-Length", str(path.stat().st_size))
                self.send_header("Accept-Ranges", "bytes")
                self.end_headers()

        def do_GET(self) -> None:  # noqa: N802
            path = self._target()
            if path is None:
                return
            data = path.read_bytes()
            ranged = self.headers.get("Range", "")
            if ranged.startswith("bytes="):
                first, _, last = ranged[6:].partition("-")
                start, end = int(first), min(int(last) if last else len(data) - 1, len(data) - 1)
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
                data = data[start:end + 1]
            else:
                self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextmanager
def serve(root: Path, token: str) -> Iterator[str]:
    """Serve ``root`` on a free loopback port while the block runs; yields the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(root, token))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
