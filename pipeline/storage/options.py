"""Storage options: ``--storage-option KEY=VALUE`` (repeatable), the rules file's
``[storage]`` section, and how they are shown (secrets never are)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

#: Option names whose values are secrets: never written to _run.json, logs or errors rows.
_SECRET = re.compile(r"secret|password|passwd|token|credential|signature|(^|_)key$|session",
                     re.IGNORECASE)


def _typed(value: str) -> Any:
    """A command-line option value as TOML reads it (true, 3, 1.5, "x"), else the string."""
    import tomllib  # (a run without storage options does not load it)

    try:
        return tomllib.loads(f"v = {value}")["v"]
    except tomllib.TOMLDecodeError:
        return value


def parse_storage_options(items: list[str]) -> dict[str, Any]:
    """``--storage-option KEY=VALUE`` values as nested options.

    ``KEY`` may start with a scheme (``s3.anon=true``) to apply to that store only; other
    dots nest (``client_kwargs.region_name=eu-west-1``). Values are read as TOML literals
    where they parse (``true``, ``30``), else taken as strings. ``ValueError`` names a
    malformed item.

    >>> parse_storage_options(["s3.anon=true", "client_kwargs.region_name=eu-west-1"])
    {'s3': {'anon': True}, 'client_kwargs': {'region_name': 'eu-west-1'}}
    """
    options: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--storage-option wants KEY=VALUE, got {redact_item(item)!r}")
        node = options
        *parents, leaf = key.strip().split(".")
        for part in parents:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ValueError(f"--storage-option {key!r} conflicts with an earlier option")
            node = child
        node[leaf] = _typed(value.strip())
    return options


def redact_item(item: str) -> str:
    """A ``KEY=VALUE`` item as it may be shown (a secret's value hidden).

    >>> redact_item("s3.secret=abc"), redact_item("s3.anon=true")
    ('s3.secret=***', 's3.anon=true')
    """
    key, sep, _ = item.partition("=")
    return f"{key}=***" if sep and _SECRET.search(key.rpartition(".")[2]) else item


def merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``over``'s values on top, nested tables merged key by key.

    >>> merge({"s3": {"anon": True, "x": 1}}, {"s3": {"anon": False}})
    {'s3': {'anon': False, 'x': 1}}
    """
    out: dict[str, Any] = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def redact(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` with every secret value replaced by ``"***"`` (for _run.json and logs).

    >>> redact({"s3": {"secret": "x", "anon": False}, "key": "k"})
    {'s3': {'secret': '***', 'anon': False}, 'key': '***'}
    """
    out: dict[str, Any] = {}
    for key, value in options.items():
        if isinstance(value, Mapping):
            out[key] = redact(value)
        else:
            out[key] = "***" if _SECRET.search(key) else value
    return out


def public(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` without the secret ones (what may travel to another host).

    >>> public({"s3": {"secret": "x", "key": "k", "anon": False}, "token": "t"})
    {'s3': {'anon': False}}
    """
    out: dict[str, Any] = {}
    for key, value in options.items():
        if isinstance(value, Mapping):
            out[key] = public(value)
        elif not _SECRET.search(key):
            out[key] = value
    return out


def secret_values(options: Mapping[str, Any]) -> Iterator[str]:
    """Every secret value in ``options`` (to scrub them from any message)."""
    for key, value in options.items():
        if isinstance(value, Mapping):
            yield from secret_values(value)
        elif _SECRET.search(key) and isinstance(value, str | int) and str(value):
            yield str(value)
