/* Compact Encoding Detection (CED, google/compact_enc_det), the detector Chromium links as
 * third_party/ced, called through its own header.
 *
 * setup.py compiles CED's sources (compact_enc_det.cc with its generated probability tables,
 * compact_enc_det_hint_code.cc, util/encodings, util/languages) from the npm package that
 * vendors them, with the defines Chromium's third_party/ced/BUILD.gn sets (COMPILER_GCC,
 * HTML5_MODE), and links them into this module. pipeline/encoding/sniff/ced.py makes the
 * call as blink::DetectTextEncoding does (text_encoding_detector.cc); this module only
 * exposes CompactEncDet::DetectEncoding with every argument it takes.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <climits>

#include "compact_enc_det/compact_enc_det.h"
#include "util/encodings/encodings.h"
#include "util/languages/languages.h"

namespace {

/* An optional str argument as a C string (None: nullptr). */
bool optional_utf8(PyObject *value, const char **out, const char *what) {
    if (value == Py_None) {
        *out = nullptr;
        return true;
    }
    if (!PyUnicode_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be str or None, not %.100s", what,
                     Py_TYPE(value)->tp_name);
        return false;
    }
    *out = PyUnicode_AsUTF8(value);
    return *out != nullptr;
}

const char kDetectDoc[] =
    "detect(data, url_hint=None, http_charset_hint=None, meta_charset_hint=None,\n"
    "       encoding_hint=None, language_hint=None, corpus=0, ignore_7bit=False)\n"
    "-> (mime_name, name, is_reliable, bytes_consumed)\n\n"
    "CompactEncDet::DetectEncoding on the bytes of data. The hints are passed through as\n"
    "CED takes them (None: a null pointer). encoding_hint is an encoding name that\n"
    "EncodingNameAliasToEncoding resolves (None: UNKNOWN_ENCODING); language_hint a\n"
    "language code that LanguageFromCode resolves (None: UNKNOWN_LANGUAGE). corpus is a\n"
    "TextCorpusType (0: WEB_CORPUS). mime_name is MimeEncodingName of the answer,\n"
    "name its EncodingName. The GIL is released during the detection.";

PyObject *detect(PyObject *, PyObject *args, PyObject *kwargs) {
    static const char *keywords[] = {"data", "url_hint", "http_charset_hint",
                                     "meta_charset_hint", "encoding_hint", "language_hint",
                                     "corpus", "ignore_7bit", nullptr};
    Py_buffer data;
    PyObject *url = Py_None, *http = Py_None, *meta = Py_None, *encoding = Py_None,
             *language = Py_None;
    int corpus = CompactEncDet::WEB_CORPUS, ignore_7bit = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*|OOOOOip", const_cast<char **>(keywords),
                                     &data, &url, &http, &meta, &encoding, &language, &corpus,
                                     &ignore_7bit)) {
        return nullptr;
    }
    const char *url_hint, *http_hint, *meta_hint, *encoding_name, *language_code;
    if (!optional_utf8(url, &url_hint, "url_hint") ||
        !optional_utf8(http, &http_hint, "http_charset_hint") ||
        !optional_utf8(meta, &meta_hint, "meta_charset_hint") ||
        !optional_utf8(encoding, &encoding_name, "encoding_hint") ||
        !optional_utf8(language, &language_code, "language_hint")) {
        PyBuffer_Release(&data);
        return nullptr;
    }
    if (corpus < 0 || corpus >= CompactEncDet::NUM_CORPA) {
        PyBuffer_Release(&data);
        PyErr_Format(PyExc_ValueError, "corpus must be 0-%d, got %d",
                     CompactEncDet::NUM_CORPA - 1, corpus);
        return nullptr;
    }
    if (data.len > INT_MAX) {  /* CED takes an int length */
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_OverflowError, "data longer than INT_MAX bytes");
        return nullptr;
    }
    Encoding hint = EncodingNameAliasToEncoding(encoding_name);
    Language lang = UNKNOWN_LANGUAGE;
    if (language_code != nullptr) {
        LanguageFromCode(language_code, &lang);
    }
    Encoding found;
    int consumed = 0;
    bool reliable = false;
    Py_BEGIN_ALLOW_THREADS
    found = CompactEncDet::DetectEncoding(
        static_cast<const char *>(data.buf), static_cast<int>(data.len), url_hint, http_hint,
        meta_hint, hint, lang, static_cast<CompactEncDet::TextCorpusType>(corpus),
        ignore_7bit != 0, &consumed, &reliable);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    return Py_BuildValue("(ssNi)", MimeEncodingName(found), EncodingName(found),
                         PyBool_FromLong(reliable), consumed);
}

PyMethodDef kMethods[] = {
    {"detect", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(detect)),
     METH_VARARGS | METH_KEYWORDS, kDetectDoc},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef kModule = {
    PyModuleDef_HEAD_INIT, "_ced",
    "Compact Encoding Detection (google/compact_enc_det) as Chromium builds it.", -1, kMethods,
    nullptr, nullptr, nullptr, nullptr,
};

}  // namespace

PyMODINIT_FUNC PyInit__ced(void) {
    /* EncodingNameAliasToEncoding fills a function-level static map on its first call,
     * unguarded: fill it here, under the GIL, before any detection runs without it. */
    EncodingNameAliasToEncoding("");
    PyObject *module = PyModule_Create(&kModule);
    if (module == nullptr) return nullptr;
    if (PyModule_AddStringConstant(module, "CED_VERSION", CompactEncDet::Version()) < 0 ||
        PyModule_AddIntConstant(module, "WEB_CORPUS", CompactEncDet::WEB_CORPUS) < 0 ||
        PyModule_AddIntConstant(module, "QUERY_CORPUS", CompactEncDet::QUERY_CORPUS) < 0) {
        Py_DECREF(module);
        return nullptr;
    }
    return module;
}
