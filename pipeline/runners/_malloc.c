/* The C library allocator's settings a worker takes when it starts (startup.start_worker).
 *
 * glibc serves a block of at least M_MMAP_THRESHOLD bytes with its own mmap and unmaps it
 * when freed. The threshold starts at 128 KiB and, by default, rises to the size of the
 * largest such block freed (up to 32 MiB): after one page of tens of MB, the next ones are
 * carved from the heap, which grows with each and keeps what it cannot hand back. Setting
 * the threshold turns that adjustment off (mallopt(3)), and with it the trim threshold's:
 * glibc then hands the top of the heap back to the kernel whenever more than
 * M_TRIM_THRESHOLD (128 KiB by default) of it is free, that is after nearly every page,
 * and the next page's blocks fault in fresh zeroed pages again. So both are set.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static int as_int(PyObject *arg, int *out) {
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred()) return -1;
    if (n < 0 || n > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "a threshold is a number of bytes from 0 to INT_MAX");
        return -1;
    }
    *out = (int)n;
    return 0;
}

/* set_thresholds(mmap, trim) -> bool: whether the C library took both as its mmap and trim
 * thresholds (False where it is not glibc). */
static PyObject *set_thresholds(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    int mmap_threshold, trim_threshold;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "set_thresholds(mmap, trim)");
        return NULL;
    }
    if (as_int(args[0], &mmap_threshold) < 0 || as_int(args[1], &trim_threshold) < 0) return NULL;
#ifdef __GLIBC__
    return PyBool_FromLong(mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1 &&
                           mallopt(M_TRIM_THRESHOLD, trim_threshold) == 1);
#else
    Py_RETURN_FALSE;
#endif
}

static PyMethodDef methods[] = {
    {"set_thresholds", (PyCFunction)(void (*)(void))set_thresholds, METH_FASTCALL,
     "set_thresholds(mmap, trim) -> bool: the C library's mmap and trim thresholds (glibc's "
     "M_MMAP_THRESHOLD and M_TRIM_THRESHOLD)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_malloc", NULL, -1, methods};

PyMODINIT_FUNC PyInit__malloc(void) { return PyModule_Create(&module); }
