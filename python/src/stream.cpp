// SPDX-License-Identifier: Apache-2.0
// Stream and Event. Waiting (synchronize, and destroying a Stream, which waits for its work)
// happens with the GIL released, so other Python threads run meanwhile.
#include <mutex>
#include <unistd.h>
#include <unordered_map>

#include "bindings.hpp"
#include "python_buffer.hpp"

namespace gpucore::python {

namespace {

// Destroying a Stream waits for its pending work: not while holding the GIL.
struct StreamDeleter {
    void operator()(Stream* stream) const noexcept {
        without_gil([stream] { delete stream; });
    }
};

} // namespace

Stream& blocking_stream(const Device& device) {
    static std::mutex mutex;
    // Leaked on purpose: a Python object released at interpreter exit may still need one.
    static auto* streams = new std::unordered_map<std::string, Stream*>();
    static pid_t owner = getpid();
    const std::string key = device.to_string();
    std::lock_guard<std::mutex> lock(mutex);
    if (owner != getpid()) {
        // A fork() child (multiprocessing): the parent's streams are not usable here (and not
        // destroyed either); the child makes its own.
        streams->clear();
        owner = getpid();
    }
    auto found = streams->find(key);
    if (found != streams->end()) return *found->second;
    Stream* stream = new Stream(device);
    streams->emplace(key, stream);
    return *stream;
}

void synchronize(Stream& stream) {
    py::gil_scoped_release release;
    stream.synchronize();
}

void bind_stream(py::module_& m) {
    py::class_<Stream, std::unique_ptr<Stream, StreamDeleter>>(
        m, "Stream",
        "An in-order queue of work on one device. Operations given stream= are enqueued on it and "
        "return at once; synchronize() waits for them (and raises what failed).")
        .def(py::init([](const py::object& device) { return new Stream(to_device(device)); }),
             py::arg("device") = py::none())
        .def_property_readonly("device", &Stream::device)
        .def("synchronize", &Stream::synchronize, py::call_guard<py::gil_scoped_release>(),
             "Waits until the work enqueued so far has finished; raises gpucore.Error for a failure of it.")
        .def("query", &Stream::query, "True when the work enqueued so far has finished. Never blocks.")
        .def("wait", &Stream::wait, py::arg("event"), "Work enqueued after this waits for the event's latest record.")
        .def_property_readonly("native_handle",
                               [](Stream& s) { return reinterpret_cast<std::uintptr_t>(s.native_handle()); },
                               "The backend's stream as an int: a cudaStream_t (cuda) or hipStream_t (hip).")
        .def("__repr__", [](const Stream& s) {
            return s.valid() ? "gpucore.Stream('" + s.device().to_string() + "')" : std::string("gpucore.Stream(<moved>)");
        });

    py::class_<Event>(m, "Event", "A marker in a stream: record(stream), then synchronize(), query(), elapsed_ms().")
        .def(py::init([](const py::object& device) { return new Event(to_device(device)); }),
             py::arg("device") = py::none())
        .def_property_readonly("device", &Event::device)
        .def("record", &Event::record, py::arg("stream"), "Marks the point the stream's enqueued work has reached.")
        .def("synchronize", &Event::synchronize, py::call_guard<py::gil_scoped_release>(),
             "Waits until the recorded work has finished.")
        .def("query", &Event::query, "True when the recorded work has finished (or nothing was recorded).")
        .def("__repr__", [](const Event& e) {
            return e.valid() ? "gpucore.Event('" + e.device().to_string() + "')" : std::string("gpucore.Event(<moved>)");
        });
    m.def("elapsed_ms", &elapsed_ms, py::arg("start"), py::arg("end"),
          "Milliseconds between two completed records on one device (end - start).");
}

} // namespace gpucore::python
