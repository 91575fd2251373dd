// occbench._engine: the occbench command, in this process, with what Python hands it in memory
// (harness/family/host_hooks.hpp): arrays, launches, conditions, verification functions and the
// buffers run_kernel reads back. Thin on purpose: the package (python/occbench) writes the config
// and the command line; the engine is the command's own (cli_main), supervision included: a
// supervised run forks this process for its children, which keep the arrays and functions.
#include "harness/cli/cli.hpp"
#include "harness/family/host_hooks.hpp"
#include "harness/records/launch_choice.hpp"
#include "kernels/families.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <Python.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using Array = nb::ndarray<nb::c_contig, nb::device::cpu>;

nb::dict params_dict(const occbench::Params& params) {
  nb::dict d;
  for (const auto& [name, value] : params.items()) d[name.c_str()] = value;
  return d;
}

// "ValueError: the message" of a Python exception, without its traceback (the caller's words, not ours).
std::string python_error_text(nb::python_error& e) {
  try {
    return nb::cast<std::string>(e.type().attr("__name__")) + ": " + nb::cast<std::string>(nb::str(e.value()));
  } catch (...) {
    return e.what();
  }
}

// A Python function called from the engine (any thread): with the GIL, its exception turned into
// the engine's error (a point that fails with Python's message).
template <typename F>
auto with_python(const char* what, F&& f) -> decltype(f()) {
  nb::gil_scoped_acquire gil;
  try {
    return f();
  } catch (nb::python_error& e) {
    throw std::runtime_error(std::string(what) + " raised " + python_error_text(e));
  }
}

occbench::Dim3 dim3_of(const nb::handle& t) {
  auto v = nb::cast<std::vector<unsigned>>(t);
  occbench::Dim3 d;
  if (v.size() > 0) d.x = v[0];
  if (v.size() > 1) d.y = v[1];
  if (v.size() > 2) d.z = v[2];
  return d;
}

// Whether this process has initialized the CUDA driver (which a forked child cannot use): never
// loaded, or loaded and cuDeviceGetCount answers "not initialized".
bool cuda_initialized() {
  void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!driver) return false;
  using Count = int (*)(int*);
  auto count = reinterpret_cast<Count>(::dlsym(driver, "cuDeviceGetCount"));
  int devices = 0;
  bool initialized = count && count(&devices) != 3;  // CUDA_ERROR_NOT_INITIALIZED
  ::dlclose(driver);
  return initialized;
}

// fork() as os.fork does it (the interpreter's locks before, its state after), the child running
// the engine without the GIL and leaving with _exit: nothing of the parent's Python runs twice.
int spawn_child(const std::function<int()>& child) {
  if (cuda_initialized())
    std::cerr << "occbench: the CUDA driver was initialized in this process before it forked a child; the child cannot use "
                 "the GPU (a bug: report it)\n";
  nb::gil_scoped_acquire gil;
  nb::module_::import_("sys").attr("stdout").attr("flush")();
  std::fflush(nullptr);
  PyOS_BeforeFork();
  pid_t pid = ::fork();
  if (pid != 0) {
    PyOS_AfterFork_Parent();
    return pid;
  }
  PyOS_AfterFork_Child();
  occbench::host_hooks().keep_cuda_out = false;  // the child measures
  int code = 1;
  {
    nb::gil_scoped_release release;
    try {
      code = child();
    } catch (const std::exception& e) {
      std::cerr << "occbench: " << e.what() << "\n";
    }
    std::cout.flush();
  }
  try {
    nb::module_::import_("sys").attr("stdout").attr("flush")();
    nb::module_::import_("sys").attr("stderr").attr("flush")();
  } catch (...) {
  }
  std::fflush(nullptr);
  ::_exit(code);
}

int command(const std::vector<std::string>& argv) {
  std::vector<std::string> copy = argv;
  std::vector<char*> pointers;
  for (auto& a : copy) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  return occbench::cli_main(int(copy.size()), pointers.data(), occbench::builtin_registry());
}

void set_arrays(occbench::HostHooks& hooks, const nb::dict& arrays) {
  for (auto [key, value] : arrays) {
    auto pair = nb::cast<nb::tuple>(value);
    Array a = nb::cast<Array>(pair[0]);
    hooks.arrays[nb::cast<std::string>(key)] = {nb::cast<std::string>(pair[1]), std::size_t(a.size()), a.data()};
  }
}

void set_launches(occbench::HostHooks& hooks, const nb::dict& launches) {
  for (auto [key, value] : launches) {
    nb::object f = nb::borrow(value);
    hooks.launches[nb::cast<std::string>(key)] = [f](const occbench::Params& p) {
      return with_python("the launch of a point", [&] {
        nb::tuple t = nb::cast<nb::tuple>(f(params_dict(p)));
        occbench::HostLaunch l;
        l.grid = dim3_of(t[0]);
        l.block = dim3_of(t[1]);
        l.dynamic_smem_bytes = nb::cast<std::size_t>(t[2]);
        l.defines = nb::cast<std::vector<std::pair<std::string, std::string>>>(t[3]);
        if (t.size() > 4 && !t[4].is_none()) l.kernel_name = nb::cast<std::string>(t[4]);  // "vector_add<float>"
        if (t.size() > 5 && !t[5].is_none()) l.source = nb::cast<std::string>(t[5]);       // a code generator's text
        return l;
      });
    };
  }
}

void set_conditions(occbench::HostHooks& hooks, const nb::dict& conditions) {
  for (auto [key, value] : conditions) {
    nb::object f = nb::borrow(value);
    hooks.conditions[nb::cast<std::string>(key)] = [f](const occbench::Params& p) {
      return with_python("a restriction", [&] { return nb::cast<bool>(f(params_dict(p))); });
    };
  }
}

// A verification function gets each output as a NumPy array of its own (copied: the engine's
// copy is gone when it returns) and answers (passed, detail).
void set_verifiers(occbench::HostHooks& hooks, const nb::dict& verifiers) {
  for (auto [key, value] : verifiers) {
    nb::object f = nb::borrow(value);
    hooks.verifiers[nb::cast<std::string>(key)] = [f](const std::vector<occbench::HostOutput>& outputs) {
      nb::gil_scoped_acquire gil;
      try {
        nb::object np = nb::module_::import_("numpy");
        nb::list arrays;
        for (const auto& o : outputs) {
          nb::bytes raw(static_cast<const char*>(o.data), o.count * std::size_t(nb::int_(np.attr("dtype")(o.dtype).attr("itemsize"))));
          arrays.append(np.attr("frombuffer")(raw, "dtype"_a = o.dtype).attr("copy")());
        }
        nb::tuple t = nb::cast<nb::tuple>(f(arrays));
        return occbench::HostVerdict{nb::cast<bool>(t[0]), nb::cast<std::string>(t[1])};
      } catch (nb::python_error& e) {
        return occbench::HostVerdict{false, std::string("the verification function raised ") + python_error_text(e)};
      }
    };
  }
}

// Runs one occbench command line with these hooks; returns its exit code.
// The caller's observers, (before(params), between(), after() -> JSON text): told around each
// point's samples in the process that measures.
void set_observers(occbench::HostHooks& hooks, const nb::object& observers) {
  if (observers.is_none()) return;
  nb::tuple t = nb::cast<nb::tuple>(observers);
  hooks.observe_before = [f = nb::borrow(t[0])](const occbench::Params& p) {
    with_python("an observer's before_start", [&] { f(params_dict(p)); });
  };
  hooks.observe_between = [f = nb::borrow(t[1])]() { with_python("an observer's during", [&] { f(); }); };
  hooks.observe_after = [f = nb::borrow(t[2])]() {
    return with_python("an observer's get_results", [&] { return nb::cast<std::string>(f()); });
  };
}

int run(const std::vector<std::string>& argv, const nb::dict& arrays, const nb::dict& launches, const nb::dict& conditions,
        const nb::dict& verifiers, const nb::dict& captures, const nb::object& record_written, const nb::object& observers) {
  occbench::HostHooks& hooks = occbench::host_hooks();
  hooks.clear();
  set_arrays(hooks, arrays);
  set_launches(hooks, launches);
  set_conditions(hooks, conditions);
  set_verifiers(hooks, verifiers);
  set_observers(hooks, observers);
  for (auto [key, value] : captures) hooks.captures[nb::cast<std::string>(key)] = nb::cast<Array>(value).data();
  if (!record_written.is_none())  // each record as it is written: the caller's cache keeps up with the run
    hooks.record_written = [f = nb::borrow(record_written)](const std::string& record) {
      nb::gil_scoped_acquire gil;
      try {
        f(record);
      } catch (nb::python_error& e) {  // the run goes on: its own .jsonl holds the record
        std::cerr << "occbench: keeping a record in the caller's file raised " << python_error_text(e) << "\n";
      }
    };
  hooks.spawn = spawn_child;
  hooks.command = command;
  hooks.keep_cuda_out = true;  // this process forks the children that measure
  int code;
  {
    nb::gil_scoped_release release;
    code = command(argv);
    std::cout.flush();
  }
  hooks.clear();
  return code;
}

// The selection rule of occbench::launch (harness/records/launch_choice.hpp) over results files:
// (where it came from, the chosen point's params as JSON or "" for the defaults, the reason, the
// files left out and why).
std::tuple<std::string, std::string, std::string, std::vector<std::string>> choose_launch(
    const std::vector<std::string>& files, const std::string& variant, const std::string& gpu, const std::string& compute_capability,
    const std::map<std::string, double>& sizes, const std::string& objective) {
  occbench::LaunchResults read = occbench::read_launch_results(files);
  std::vector<std::string> left_out;
  for (const auto& [path, why] : read.left_out) left_out.push_back(why);
  occbench::LaunchChoice choice = occbench::choose_launch(read.results, variant, {gpu, compute_capability, sizes}, occbench::parse_objective(objective));
  return {occbench::from_name(choice.from), choice.best ? choice.best->params.dump() : "", choice.reason, left_out};
}

}  // namespace

NB_MODULE(_engine, m) {
  m.doc() = "occbench's engine in this process: the command's measurement, verification, supervision and search";
  m.def("run", &run, "argv"_a, "arrays"_a, "launches"_a, "conditions"_a, "verifiers"_a, "captures"_a,
        "record_written"_a = nb::none(), "observers"_a = nb::none(),
        "Runs an occbench command line (['occbench', 'run', CONFIG, ...]) with arrays and functions handed over in memory; "
        "returns its exit code.");
  m.def("choose_launch", &choose_launch, "files"_a, "variant"_a, "gpu"_a, "compute_capability"_a, "sizes"_a, "objective"_a,
        "occbench::launch's choice of a configuration from results files (occbench.launch.choose).");
  m.def("version", [] { return occbench::version_text(); });
  m.def("cuda_initialized", &cuda_initialized,
        "Whether this process has initialized the CUDA driver (its forked children could then not use the GPU).");
}
