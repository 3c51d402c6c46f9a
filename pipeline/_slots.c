/* build(cls, setters, *values) -> an instance of cls with setters[i] set to values[i].
 *
 * For frozen slotted dataclasses (RawRecord, HttpResponse): their generated __init__ sets
 * each field with object.__setattr__, ~150 ns a field in Python. Here each slot's member
 * descriptor is set from C, which is what object.__setattr__ ends up doing; the instance is
 * the same (frozen, equal, same hash). The caller passes the class's slot descriptors in
 * field order and every field's value; pipeline/frozen.py checks that the class has no
 * __post_init__, and tests/unit/test_frozen.py compares with the dataclass constructor.
 * Every argument is checked: cls must be a class object.__new__ makes, each setter one of
 * its slots (tests/unit/test_native_arguments.py).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* A new, empty instance of cls, exactly as object.__new__(cls) makes one; NULL with TypeError
 * for a class whose instances object.__new__ may not make (its own __new__ fills a C struct:
 * memoryview, dict, int... allocated without it, they are not valid objects). */
static PyObject *new_instance(PyTypeObject *cls) {
    if (cls->tp_new != PyBaseObject_Type.tp_new) {
        PyErr_Format(PyExc_TypeError, "build(): %.200s is not made by object.__new__", cls->tp_name);
        return NULL;
    }
    PyObject *none = PyTuple_New(0);
    if (none == NULL) return NULL;
    PyObject *obj = PyBaseObject_Type.tp_new(cls, none, NULL);  /* (refuses abstract classes) */
    Py_DECREF(none);
    return obj;
}

static PyObject *build(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs < 2 || !PyType_Check(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "build(cls, setters: tuple, *values)");
        return NULL;
    }
    PyTypeObject *cls = (PyTypeObject *)args[0];
    PyObject *setters = args[1];
    Py_ssize_t count = PyTuple_GET_SIZE(setters);
    if (nargs - 2 != count) {
        PyErr_Format(PyExc_TypeError, "build() needs %zd values, got %zd", count, nargs - 2);
        return NULL;
    }
    /* Each setter is a slot of cls (a member descriptor of cls or of a class it derives
     * from): the instance has room for it, and setting it is object.__setattr__'s path. */
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *setter = PyTuple_GET_ITEM(setters, i);
        if (!Py_IS_TYPE(setter, &PyMemberDescr_Type) ||
            !PyType_IsSubtype(cls, ((PyDescrObject *)setter)->d_type)) {
            PyErr_Format(PyExc_TypeError, "build(): setter %zd is not a slot of %.200s", i, cls->tp_name);
            return NULL;
        }
    }
    PyObject *obj = new_instance(cls);
    if (obj == NULL) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *setter = PyTuple_GET_ITEM(setters, i);
        if (Py_TYPE(setter)->tp_descr_set(setter, obj, args[i + 2]) < 0) {
            Py_DECREF(obj);
            return NULL;
        }
    }
    return obj;
}

static PyMethodDef methods[] = {
    {"build", (PyCFunction)(void (*)(void))build, METH_FASTCALL,
     "build(cls, setters, *values): an instance of cls with each setter set to its value"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_slots", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__slots(void) { return PyModule_Create(&module); }
