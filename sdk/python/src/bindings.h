// What the binding's files share (core_module.cpp, state_bindings.cpp, search_bindings.cpp,
// table_bindings.cpp):
// the registered value types, conversions between core values and Python objects, and each
// file's bind function.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "allfives/core/knowledge.h"
#include "allfives/core/resample.h"
#include "allfives/core/state.h"
#include "observation.h"
#include "simulate.h"
#include "values.h"

namespace allfives::python {

inline Values& V() {
  return Values::get();
}

// A view with the seat's knowledge of the hand when the SDK or the environment tracked it, so
// a bot can turn it into worlds to search in one call (sample_state).
struct PyView {
  View view;
  std::optional<Knowledge> knowledge;
};

Config to_config(py::handle h);             // a Config, or a Format for its standard terms
Policy to_policy(const std::string& name);  // ValueError for an unknown name
py::tuple ints(const int* values, int n);
py::tuple scores_of(const State& s);         // every side's
py::tuple line_of(const Line& line);         // LineTile tuples in play order
py::object end_of(const Line& line, End e);  // a LineEnd, None while the line is empty
py::tuple plays_of(const PlayList& list);    // Play tuples
py::list actions_of(const PlayList& list);   // tile index * 2 + end
void apply_or_raise(State& s, Play p, EventList* events);  // ValueError saying why
Play play_of_action(int action);                           // ValueError outside 0..55
py::list events_of(const EventList& events);
void check_fits(const Line& line, Play p);          // ValueError if the tile does not fit
int checked_count_after(const Line& line, Play p);  // ValueError if the tile does not fit
py::object to_array(const Features& o);             // array.array("h")
py::bytes mask_of(const PlayList& legal);           // NUM_ACTIONS bytes of 0 or 1
State blank_state();                                // a state to assign into
State sample_or_raise(const WorldSampler& sampler, SplitMix64& rng);

void bind_state(py::module_& m);  // state_bindings.cpp: State, View
void bind_view(py::module_& m);
void bind_knowledge(py::module_& m);  // search_bindings.cpp: Knowledge, WorldSampler,
void bind_batch(py::module_& m);      // play_matches
void bind_table(py::module_& m);      // table_bindings.cpp: Table
void bind_engine(py::module_& m);     // engine_bindings.cpp: evaluate

}  // namespace allfives::python
