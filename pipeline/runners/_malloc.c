/* The C library allocator's setting a worker takes when it starts (startup.start_worker).
 *
 * glibc serves a block of at least M_MMAP_THRESHOLD bytes with its own mmap and unmaps it
 * when freed. The threshold starts at 128 KiB and, by default, rises to the size of the
 * largest such block freed (up to 32 MiB): after one page of tens of MB, the next ones are
 * carved from the heap, which grows with each and keeps what it cannot hand back. Setting
 * the threshold turns that adjustment off (mallopt(3)).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* set_mmap_threshold(n) -> bool: whether the C library took n as its mmap threshold (False
 * where it is not glibc). */
static PyObject *set_mmap_threshold(PyObject *self, PyObject *arg) {
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 0 || n > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "the threshold is a number of bytes from 0 to INT_MAX");
        return NULL;
    }
#ifdef __GLIBC__
    return PyBool_FromLong(mallopt(M_MMAP_THRESHOLD, (int)n) == 1);
#else
    Py_RETURN_FALSE;
#endif
}

static PyMethodDef methods[] = {
    {"set_mmap_threshold", set_mmap_threshold, METH_O,
     "set_mmap_threshold(n) -> bool: the C library's mmap threshold (glibc's M_MMAP_THRESHOLD)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_malloc", NULL, -1, methods};

PyMODINIT_FUNC PyInit__malloc(void) { return PyModule_Create(&module); }
