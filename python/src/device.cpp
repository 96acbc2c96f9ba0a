// SPDX-License-Identifier: Apache-2.0
// Device and the runtime's view of the machine: devices(), default_device(), select_device(),
// backends(), plugin_candidates(), memory_info().
#include <functional>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "python_buffer.hpp"

namespace gpucore::python {

Device to_device(const py::handle& value) {
    if (value.is_none()) return default_device();
    if (py::isinstance<Device>(value)) {
        Device device = value.cast<Device>();
        if (!device.valid()) throw Error(ErrorCode::invalid_argument, "device", "", -1, "the device is a null Device");
        return device;
    }
    if (py::isinstance<py::str>(value)) return select_device(value.cast<std::string>());
    throw py::type_error("a device is a gpucore.Device, a text such as 'cpu' or 'cuda:1', or None, not " +
                         py::repr(value).cast<std::string>());
}

void bind_device(py::module_& m) {
    py::class_<Device>(m, "Device",
                       "A device of some backend ('cpu:0', 'cuda:1'). Get one from devices(), "
                       "default_device() or select_device().")
        .def_property_readonly("backend", &Device::backend_name, "'cpu', 'cuda', 'hip', or a plugin's name")
        .def_property_readonly("index", &Device::index, "index within the backend (the CUDA/HIP ordinal)")
        .def_property_readonly("name", [](const Device& d) { return d.properties().name; })
        .def_property_readonly("vendor", [](const Device& d) { return d.properties().vendor; })
        .def_property_readonly("architecture", [](const Device& d) { return d.properties().architecture; })
        .def_property_readonly("total_memory_bytes", [](const Device& d) { return d.properties().total_memory_bytes; })
        .def_property_readonly("compute_units", [](const Device& d) { return d.properties().compute_units; })
        .def_property_readonly("warp_size", [](const Device& d) { return d.properties().warp_size; })
        .def_property_readonly("l2_cache_bytes", [](const Device& d) { return d.properties().l2_cache_bytes; })
        .def_property_readonly("peak_memory_bandwidth_gbps",
                               [](const Device& d) { return d.properties().peak_memory_bandwidth_gbps; })
        .def_property_readonly("supports_pinned_host", [](const Device& d) { return d.properties().supports_pinned_host; })
        .def_property_readonly("supports_managed", [](const Device& d) { return d.properties().supports_managed; })
        .def("memory_info",
             [](const Device& d) {
                 const MemoryInfo info = memory_info(d);
                 return py::dict(py::arg("free_bytes") = info.free_bytes, py::arg("total_bytes") = info.total_bytes);
             },
             "{'free_bytes': ..., 'total_bytes': ...} as the device's runtime reports them now")
        .def("__str__", &Device::to_string)
        .def("__repr__", [](const Device& d) {
            return d.valid() ? "gpucore.Device('" + d.to_string() + "', '" + d.properties().name + "')"
                             : std::string("gpucore.Device(<null>)");
        })
        .def("__eq__", [](const Device& a, const py::object& b) {
            return py::isinstance<Device>(b) && a == b.cast<Device>();
        })
        .def("__hash__", [](const Device& d) { return std::hash<std::string>()(d.to_string()); });

    m.def("devices", &devices, py::call_guard<py::gil_scoped_release>(), "Every device of every usable backend, in selection order: cuda, hip, other plugins, cpu.");
    m.def("default_device", &default_device, py::call_guard<py::gil_scoped_release>(),
          "The device GPU_BACKEND selects ('auto' when unset: the first backend with a device).");
    m.def("select_device", &select_device, py::call_guard<py::gil_scoped_release>(), py::arg("selection"),
          "A device by selection text: 'auto', 'cpu', 'cuda', 'cuda:1', a plugin's name.");
    m.def("memory_info", [](const py::object& device) {
        const MemoryInfo info = memory_info(to_device(device));
        return py::dict(py::arg("free_bytes") = info.free_bytes, py::arg("total_bytes") = info.total_bytes);
    }, py::arg("device") = py::none());

    py::class_<BackendInfo>(m, "BackendInfo")
        .def_readonly("name", &BackendInfo::name)
        .def_readonly("source", &BackendInfo::source)
        .def_readonly("version", &BackendInfo::version)
        .def_readonly("usable", &BackendInfo::usable)
        .def_readonly("device_count", &BackendInfo::device_count)
        .def_readonly("reason", &BackendInfo::reason)
        .def("__repr__", [](const BackendInfo& b) {
            return "gpucore.BackendInfo('" + b.name + "', usable=" + (b.usable ? "True" : "False") +
                   ", device_count=" + std::to_string(b.device_count) + ")";
        });
    m.def("backends", &backends, py::call_guard<py::gil_scoped_release>(), "Every backend the runtime knows, usable or not, with the reason when not.");

    py::class_<PluginCandidate>(m, "PluginCandidate")
        .def_readonly("path", &PluginCandidate::path)
        .def_property_readonly("outcome", [](const PluginCandidate& c) { return std::string(to_string(c.outcome)); })
        .def_readonly("backend", &PluginCandidate::backend)
        .def_readonly("reason", &PluginCandidate::reason)
        .def("__repr__", [](const PluginCandidate& c) {
            return "gpucore.PluginCandidate('" + c.path + "', " + to_string(c.outcome) + ")";
        });
    m.def("plugin_candidates", &plugin_candidates, py::call_guard<py::gil_scoped_release>(), "Every plugin file the discovery considered, with its outcome.");
}

} // namespace gpucore::python
