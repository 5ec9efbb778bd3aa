// Methods written against CPython's METH_FASTCALL convention, for the few calls a Python loop
// makes at every play (Table.play, Table.observe, SplitMix64.below...): a pybind11 call costs
// about 0.2 µs of dispatch (argument casters, a type lookup by name), as much as a play, and
// a fast call about a tenth of that.
#pragma once

#include <pybind11/pybind11.h>

#include <exception>
#include <string>
#include <typeinfo>

namespace allfives::python {

// Runs `body` and turns a C++ exception into a Python one (nullptr), as pybind11 would.
template <class Body>
PyObject* guarded(Body&& body) {
  try {
    return body();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

// The C++ object of `self`, an instance of the pybind11 class of T (the method descriptor
// has checked its type already); the type lookup by name is made once.
template <class T>
T& self_of(PyObject* self) {
  static py::detail::type_info* const info = py::detail::get_type_info(typeid(T));
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  py::detail::value_and_holder vh = inst->get_value_and_holder(info, true);
  if (!vh.holder_constructed()) throw py::type_error("the object is not initialized");
  return *static_cast<T*>(vh.value_ptr());
}

// The single argument of a fast call, positional or by the keyword `name`.
inline PyObject* only_arg(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                          const char* name) {
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (nargs + nkw != 1)
    throw py::type_error(std::string("takes exactly one argument (") + name + ")");
  if (nkw == 1 && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), name) != 0)
    throw py::type_error(std::string("unexpected keyword argument; the argument is ") + name);
  return args[0];
}

// Adds `def` (METH_FASTCALL, with or without METH_KEYWORDS) to the pybind11 class `cls` as a
// method; `def` must outlive the module (a static).
inline void add_fast_method(py::handle cls, PyMethodDef* def) {
  py::object method = py::reinterpret_steal<py::object>(
      PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), def));
  if (!method) throw py::error_already_set();
  py::setattr(cls, def->ml_name, method);
}

// A METH_FASTCALL | METH_KEYWORDS function as the PyCFunction that PyMethodDef holds.
using FastCall = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*);
inline PyCFunction as_cfunction(FastCall f) {
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(f));
}

}  // namespace allfives::python
