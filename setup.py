"""Build of the compiled core, ``pipeline.native`` (the project metadata is in pyproject.toml).

Every extension module is required: a build that cannot compile one fails the install,
naming the module and what it needs (a C11 and a C++20 compiler and Python's headers);
there is no pure-Python path. The modules' sources live beside the Python that calls them
(``pipeline/extract/_document.c``, ...); the built modules all go into the package
``pipeline.native``, whose ``__init__`` is their one importer.

Three extension modules link a parser built here from a registry package's sources, so the
compiler checks every struct and function they use against the parser's own headers:

* ``pipeline.native._document`` holds Lexbor's HTML parser (the ``core``, ``dom``,
  ``html``, ``ns`` and ``tag`` modules of the Lexbor tree that the selectolax sdist on PyPI
  carries, Apache-2.0), fetched with pip at build time and checked against a SHA-256;
  ``REDECODE_LEXBOR_SDIST`` names a local copy of that sdist for offline builds.
* ``pipeline.native._urls`` holds ada (``ada.cpp`` and ``ada.h``, which the
  ada-url wheel ships; ada-url is a build requirement).
* ``pipeline.native._ced`` holds Compact Encoding Detection (google/compact_enc_det, the
  detector Chromium links as ``third_party/ced``, Apache-2.0), from the copy the npm package
  ``ced`` vendors (``vendor/compact_enc_det``, with its generated probability tables),
  fetched over HTTPS from the npm registry at build time and checked against the registry's
  SHA-512 integrity; ``REDECODE_CED_TARBALL`` names a local copy of that tarball for offline
  builds. It is compiled with the defines of Chromium's ``third_party/ced/BUILD.gn``.

``pipeline.native._urls`` also holds nanoarrow (Apache Arrow's C library for the Arrow C Data
Interface, Apache-2.0): the links of a batch of records are appended into Arrow arrays by
compiled code and handed to pyarrow as a record batch through PyCapsules. Its C sources
(``common/array.c``, ``schema.c``, ``utils.c`` and their headers) come from the ``nanoarrow``
sdist on PyPI, fetched over HTTPS at build time and checked against its SHA-256;
``REDECODE_NANOARROW_SDIST`` names a local copy of that sdist for offline builds.

``REDECODE_SANITIZE=1`` builds every extension, Lexbor, ada, CED and nanoarrow included, with AddressSanitizer and UndefinedBehaviorSanitizer
(``make sanitize``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from base64 import b64decode
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CompileError, ExecError, LinkError, PlatformError

ROOT = Path(__file__).resolve().parent
#: The sdist whose ``lexbor/`` tree is built (Lexbor 3.1.0), and its SHA-256 on PyPI.
LEXBOR_SDIST = ("selectolax", "1.0.2", "f0508ad927aa426425d4aa7a2bb2f8b21c01412534465bd227e241d4d0a6a418")
LEXBOR_VERSION = "3.1.0"
#: The Lexbor modules the HTML parser needs (html depends on core, dom, ns and tag only).
LEXBOR_MODULES = ("core", "dom", "html", "ns", "tag")
#: The npm tarball that vendors CED, and its integrity (SHA-512) as the registry publishes it.
CED_TARBALL = ("ced", "2.0.0", "d5j+xsZDbSarov5iA8wrCoKNDeszm8qZqAYrSG+KxqX8X3RbVxCFAGtQJLo9yoquTWRbWlwPwdMqa/De99i3ew==")
CED_URL = "https://registry.npmjs.org/{0}/-/{0}-{1}.tgz"
#: The sdist that carries nanoarrow's C library (its ``subprojects/arrow-nanoarrow`` tree), its
#: SHA-256 and its address on PyPI (the sdist's metadata is built with meson-python, which
#: ``pip download`` would have to install: the file is fetched as it is).
NANOARROW_SDIST = ("nanoarrow", "0.9.0", "1ce15bbed8532839347faa78824c5dbd3769bff60661003e34c6fba5dd881bd3")
NANOARROW_URL = ("https://files.pythonhosted.org/packages/bc/b2/"
                 "8fedfa966cc25126e1c9090e6d9fed75dab4e1d2716e3ca2d18ea2d6f438/nanoarrow-0.9.0.tar.gz")
#: nanoarrow's library sources (its meson.build ``nanoarrow`` library, without the stream
#: helpers, which nothing here uses), and the prefix of its symbols (its
#: ``NANOARROW_NAMESPACE``: no clash with another copy loaded in the process).
NANOARROW_SOURCES = ("common/array.c", "common/schema.c", "common/utils.c")
NANOARROW_NAMESPACE = "Redecode"
#: CED's translation units (Chromium's BUILD.gn ``ced`` target, tests left out).
CED_SOURCES = ("compact_enc_det/compact_enc_det.cc", "compact_enc_det/compact_enc_det_hint_code.cc",
               "util/encodings/encodings.cc", "util/languages/languages.cc")
#: Chromium's third_party/ced/BUILD.gn defines (COMPILER_GCC off Windows, HTML5_MODE always).
CED_MACROS: list[tuple[str, str | None]] = [("COMPILER_GCC", None), ("HTML5_MODE", None)]
SANITIZE = os.environ.get("REDECODE_SANITIZE", "") not in ("", "0")
SANITIZER_FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
                   "-fno-omit-frame-pointer", "-g"]
#: Release builds optimize as CMake's Release type builds Lexbor and ada (-O3): -O2 gave the
#: extraction step 1.03x and 1.05x resiliparse's rate taking turns, 1.08x and 1.10x alone,
#: against 1.06x and 1.07x, 1.19x and 1.20x (bench/extract_bench.py, alternated).
OPTIMIZE = ["-O1", *SANITIZER_FLAGS] if SANITIZE else ["-O3"]
C_FLAGS = [*OPTIMIZE, "-std=c11"]
#: Where fetched sources and compiled parser objects are kept between builds (keyed by the
#: sources' hash and the flags: an editable reinstall does not rebuild Lexbor).
CACHE = Path(os.environ.get("REDECODE_BUILD_CACHE", ROOT / "build" / "native"))


def _lexbor_tree() -> Path:
    """The Lexbor source tree (``.../lexbor/source``), extracted from the pinned sdist."""
    name, version, sha256 = LEXBOR_SDIST
    target = CACHE / f"lexbor-{LEXBOR_VERSION}-{sha256[:12]}"
    if (target / "source" / "lexbor" / "html" / "parser.h").exists():
        return target / "source"
    sdist = os.environ.get("REDECODE_LEXBOR_SDIST")
    with tempfile.TemporaryDirectory() as tmp:
        if sdist is None:
            try:
                subprocess.run(
                    [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                     "--no-build-isolation", "-q", "-d", tmp, f"{name}=={version}"],
                    check=True, timeout=600,
                )
            except (OSError, subprocess.SubprocessError) as exc:
                raise CompileError(f"could not fetch the {name} {version} sdist: {exc}") from exc
            sdist = str(next(Path(tmp).glob(f"{name}-{version}.tar.gz")))
        digest = hashlib.sha256(Path(sdist).read_bytes()).hexdigest()
        if digest != sha256:
            raise CompileError(f"{sdist}: SHA-256 {digest}, expected {sha256}")
        prefix = f"{name}-{version}/lexbor/"
        wanted = tuple(f"{prefix}source/lexbor/{module}/" for module in LEXBOR_MODULES) + (
            f"{prefix}source/lexbor/ports/posix/", f"{prefix}LICENSE", f"{prefix}NOTICE")
        CACHE.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=CACHE))
        with tarfile.open(sdist) as archive:
            members = [m for m in archive.getmembers()
                       if m.name.startswith(wanted) and (m.isfile() or m.isdir())]
            for member in members:
                member.name = member.name[len(prefix):]
            archive.extractall(staging, members=members, filter="data")
        if not target.exists():  # (a concurrent build may have got there first)
            os.replace(staging, target)
    return target / "source"


def _fetch(url: str, local_variable: str) -> tuple[bytes, str]:
    """The bytes of a pinned source archive and where they came from: the local copy the
    environment variable ``local_variable`` names, else ``url`` (checked by the caller)."""
    local = os.environ.get(local_variable)
    if local is not None:
        return Path(local).read_bytes(), local
    try:
        with urllib.request.urlopen(url, timeout=300) as response:  # noqa: S310 (fixed https URL)
            return response.read(), url
    except OSError as exc:
        raise CompileError(f"could not fetch {url}: {exc} ({local_variable} names a local copy)") from exc


def _ced_tree() -> Path:
    """CED's source tree (``compact_enc_det/``, ``util/``, ``LICENSE``), extracted from the
    pinned npm tarball."""
    name, version, integrity = CED_TARBALL
    digest = b64decode(integrity)
    target = CACHE / f"ced-{version}-{digest.hex()[:12]}"
    if (target / "compact_enc_det" / "compact_enc_det.h").exists():
        return target
    data, where = _fetch(CED_URL.format(name, version), "REDECODE_CED_TARBALL")
    if hashlib.sha512(data).digest() != digest:
        raise CompileError(f"{where}: SHA-512 differs from the npm registry's integrity {integrity}")
    prefix = "package/vendor/compact_enc_det/"
    CACHE.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=CACHE))
    with tempfile.TemporaryDirectory() as tmp:
        tarball = Path(tmp) / f"{name}-{version}.tgz"
        tarball.write_bytes(data)
        with tarfile.open(tarball) as archive:
            members = [m for m in archive.getmembers()
                       if m.name.startswith(prefix) and m.isfile() and not m.name.endswith("test.cc")
                       and (m.name.endswith((".cc", ".h", ".inc")) or m.name == prefix + "LICENSE")]
            for member in members:
                member.name = member.name[len(prefix):]
            archive.extractall(staging, members=members, filter="data")
    if not target.exists():  # (a concurrent build may have got there first)
        os.replace(staging, target)
    else:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _nanoarrow_tree() -> Path:
    """nanoarrow's source tree (``nanoarrow/nanoarrow.h``, ``nanoarrow/common/...``, with
    ``nanoarrow_config.h`` written as its meson build configures it), extracted from the
    pinned sdist."""
    name, version, sha256 = NANOARROW_SDIST
    target = CACHE / f"nanoarrow-{version}-{sha256[:12]}"
    if (target / "nanoarrow" / "nanoarrow_config.h").exists():
        return target
    data, where = _fetch(NANOARROW_URL, "REDECODE_NANOARROW_SDIST")
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise CompileError(f"{where}: SHA-256 {digest}, expected {sha256}")
    prefix = f"{name}-{version}/subprojects/arrow-nanoarrow/src/nanoarrow/"
    wanted = (f"{prefix}nanoarrow.h", f"{prefix}nanoarrow_config.h.in", f"{prefix}common/")
    CACHE.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=CACHE))
    with tempfile.TemporaryDirectory() as tmp:
        sdist = Path(tmp) / f"{name}-{version}.tar.gz"
        sdist.write_bytes(data)
        with tarfile.open(sdist) as archive:
            members = [m for m in archive.getmembers() if m.isfile() and m.name.startswith(wanted)
                       and not m.name.endswith("_test.cc")]
            for member in members:
                member.name = "nanoarrow/" + member.name[len(prefix):]
            archive.extractall(staging, members=members, filter="data")
    # src/nanoarrow/meson.build's configure_file: the version and the symbols' namespace
    major, minor, patch = version.split(".")[:3]
    config = (staging / "nanoarrow" / "nanoarrow_config.h.in").read_text("utf-8")
    for key, value in (("NANOARROW_VERSION_MAJOR", major), ("NANOARROW_VERSION_MINOR", minor),
                       ("NANOARROW_VERSION_PATCH", patch), ("NANOARROW_VERSION", version),
                       ("NANOARROW_NAMESPACE_DEFINE", f"#define NANOARROW_NAMESPACE {NANOARROW_NAMESPACE}")):
        config = config.replace(f"@{key}@", value)
    (staging / "nanoarrow" / "nanoarrow_config.h").write_text(config, "utf-8")
    if not target.exists():  # (a concurrent build may have got there first)
        os.replace(staging, target)
    else:
        shutil.rmtree(staging, ignore_errors=True)
    return target


#: ada's parser behind the project's own C interface (_ada_base.h), linked into ``_urls``.
ADA_BASE = "pipeline/extract/_ada_base.cpp"


def _ada_dir() -> Path:
    """The installed ada-url package: ``ada.cpp`` and ``ada.h``."""
    spec = importlib.util.find_spec("ada_url")
    if spec is None or not spec.submodule_search_locations:
        raise CompileError("ada-url is not installed in the build environment")
    where = Path(next(iter(spec.submodule_search_locations)))
    if not all((where / f).exists() for f in ("ada.cpp", "ada.h")):
        raise CompileError(f"{where}: ada-url ships no ada.cpp / ada.h")
    return where


def _ada_version() -> str:
    from importlib.metadata import version

    return version("ada-url")


class BuildNative(build_ext):
    """``build_ext`` that first compiles the parsers the extensions link (in parallel, cached),
    and records what it compiled in ``pipeline/_native.json`` (read by
    ``pipeline.provenance``, which names a run's code without importing the extensions)."""

    def run(self) -> None:
        super().run()
        built = sorted(ext.name for ext in self.extensions
                       if os.path.exists(self.get_ext_fullpath(ext.name)))
        info = {
            "lexbor": f"{LEXBOR_VERSION} (selectolax {LEXBOR_SDIST[1]} sdist, sha256 {LEXBOR_SDIST[2][:12]})",
            "ada": _ada_version(),
            "ced": f"npm ced {CED_TARBALL[1]}",
            "nanoarrow": f"{NANOARROW_SDIST[1]} (nanoarrow sdist, sha256 {NANOARROW_SDIST[2][:12]})",
            "sanitize": SANITIZE,
            "built": built,
        }
        target = Path(self.get_ext_fullpath("pipeline.native._slots")).parent.parent / "_native.json"
        target.write_text(json.dumps(info, indent=1, sort_keys=True) + "\n", encoding="utf-8")

    def build_extension(self, ext: Extension) -> None:
        try:
            self._build(ext)
        except (CompileError, LinkError, ExecError, PlatformError, OSError) as exc:
            raise CompileError(
                f"redecode: could not build {ext.name} ({exc}). redecode's compiled core is "
                "required (there is no pure-Python path): it needs a C11 and a C++20 compiler "
                "(gcc or clang, as CC and CXX), Python's headers (python3-dev), and at build "
                "time the Lexbor and CED sources (fetched from PyPI and npm, or named by "
                "REDECODE_LEXBOR_SDIST and REDECODE_CED_TARBALL)") from exc

    def _build(self, ext: Extension) -> None:
        if ext.name == "pipeline.native._document":
            source = _lexbor_tree()
            files = sorted(str(p) for module in LEXBOR_MODULES
                           for p in (source / "lexbor" / module).rglob("*.c"))
            files += sorted(str(p) for p in (source / "lexbor" / "ports" / "posix").rglob("*.c"))
            ext.include_dirs = [str(source)]
            ext.define_macros = [("LEXBOR_STATIC", None)]
            ext.extra_objects = self._objects("lexbor", files, [str(source)], C_FLAGS,
                                              [("LEXBOR_STATIC", None)])
        elif ext.name == "pipeline.native._urls":
            ada = _ada_dir()
            flags = [*OPTIMIZE, "-std=c++20"]
            macros = [("ADA_INCLUDE_URL_PATTERN", "0")]
            nanoarrow = _nanoarrow_tree()
            ext.include_dirs = [str(ada), str(nanoarrow)]
            ext.extra_objects = [
                *self._objects("ada", [str(ada / "ada.cpp")], [str(ada)], flags, macros),
                *self._objects("ada-base", [ADA_BASE], [str(ada)], [*flags, "-Wall"], macros),
                *self._objects("nanoarrow", [str(nanoarrow / "nanoarrow" / f) for f in NANOARROW_SOURCES],
                               [str(nanoarrow)], C_FLAGS, [])]
            ext.libraries = ["stdc++"]
            ext.define_macros = [("ADA_URL_PACKAGE_VERSION", f'"{_ada_version()}"')]
        elif ext.name == "pipeline.native._ced":
            ced = _ced_tree()
            ext.include_dirs = [str(ced)]
            ext.define_macros = list(CED_MACROS)
            # CED is third-party code built as Chromium builds it ("no_chromium_code": its
            # warnings are not ours to fix); the module itself compiles with warnings on.
            flags = [*OPTIMIZE, "-std=c++11", "-w"]
            ext.extra_objects = self._objects("ced", [str(ced / f) for f in CED_SOURCES], [str(ced)], flags,
                                              CED_MACROS)
            ext.extra_compile_args = [*OPTIMIZE, "-std=c++17", "-Wall"]
            ext.libraries = ["stdc++"]
        if SANITIZE:
            ext.extra_link_args = [*ext.extra_link_args, *SANITIZER_FLAGS]
        super().build_extension(ext)
        if ext.name == "pipeline.native._document":
            # Lexbor is Apache-2.0: its LICENSE and NOTICE go beside the module in the build
            # (so into the wheel).
            beside = Path(self.get_ext_fullpath(ext.name)).parent
            for name in ("LICENSE", "NOTICE"):
                shutil.copyfile(source.parent / name, beside / f"LEXBOR_{name}")
        elif ext.name == "pipeline.native._ced":
            # CED is Apache-2.0 (its tree has a LICENSE and no NOTICE): beside the module too.
            shutil.copyfile(ced / "LICENSE", Path(self.get_ext_fullpath(ext.name)).parent / "CED_LICENSE")

    def _objects(self, name: str, files: list[str], include: list[str], flags: list[str],
                 macros: list[tuple[str, str | None]]) -> list[str]:
        """Object files of ``files``, compiled one per core at a time into a cache keyed by
        their content and the flags."""
        key = hashlib.sha256(repr((flags, macros, self.compiler.compiler_so)).encode())
        for path in files:
            key.update(path.encode() + Path(path).read_bytes())
        out = CACHE / f"{name}-obj-{key.hexdigest()[:16]}"
        objects = self.compiler.object_filenames(files, output_dir=str(out))
        if all(os.path.exists(o) for o in objects):
            return objects
        for obj in objects:
            Path(obj).parent.mkdir(parents=True, exist_ok=True)

        def compile_one(path: str) -> list[str]:
            return self.compiler.compile([path], output_dir=str(out), macros=macros,
                                         include_dirs=include, extra_postargs=flags)

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            compiled = [obj for objs in pool.map(compile_one, files) for obj in objs]
        return compiled


def _extension(name: str, sources: list[str], **kwargs: object) -> Extension:
    """A required module of ``pipeline.native`` (``name``: the module's own name)."""
    return Extension(f"pipeline.native.{name}", sources, extra_compile_args=C_FLAGS, optional=False,
                     **kwargs)


setup(
    ext_modules=[
        # Lexbor's HTML parser and the tree walks over it (pipeline/extract/_document.c).
        # The URLs inside srcset values, style sheets and scripts (_urltext.c) go with them.
        _extension("_document",
                   ["pipeline/extract/_document.c", "pipeline/extract/_urltext.c"],
                   depends=["pipeline/extract/_ascii.h", "pipeline/extract/_buf.h",
                            "pipeline/extract/_candidates.h", "pipeline/extract/_urltext.h"]),
        # A document's hrefs parsed in one call through ada (pipeline/extract/_urls.c), a base
        # URL parsed once (ADA_BASE, compiled with ada's flags).
        # The links of a batch of records appended into Arrow arrays (_linkbatch.c, nanoarrow).
        _extension("_urls", ["pipeline/extract/_urls.c", "pipeline/extract/_linkbatch.c"],
                   depends=["pipeline/extract/_ascii.h", "pipeline/extract/_ada_base.h",
                            "pipeline/extract/_candidates.h", "pipeline/extract/_linkbatch.h", ADA_BASE]),
        # py3langid's byte DFA walk and scoring: same features, the same formula in float64.
        _extension("_dfa", ["pipeline/extract/_dfa.c"], libraries=["m"]),
        # check_utf8's counts: the WHATWG UTF-8 decoder, counting.
        _extension("_utf8", ["pipeline/encoding/_utf8.c"]),
        # Compact Encoding Detection, called as Chromium calls it (pipeline/encoding/sniff/ced.py).
        _extension("_ced", ["pipeline/encoding/_ced.cpp"]),
        # mojibake_score's character-class counts in one pass.
        _extension("_mojibake", ["pipeline/encoding/_mojibake.c"]),
        # The stored response's head split in one pass (tests/oracles/http_head.py restates it).
        _extension("_head", ["pipeline/http/_head.c"]),
        # Frozen slotted records built without a Python call per field (pipeline/frozen.py).
        _extension("_slots", ["pipeline/_slots.c"]),
        # The WARC header fields the fast path reads, in one pass (tests/oracles/warc_fields.py).
        _extension("_fields", ["pipeline/sources/_fields.c"]),
        # The C library allocator's mmap threshold, set when a worker starts.
        _extension("_malloc", ["pipeline/runners/_malloc.c"]),
    ],
    cmdclass={"build_ext": BuildNative},
)
