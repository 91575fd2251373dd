// Per-architecture kernel resources from ptxas: parsing, name matching, and the guarantee that the
// build has every registered kernel for every architecture it was compiled for.
#include "harness/model/kernel_resources.hpp"
#include "harness/family/registry.hpp"
#include "plan_test_support.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace occbench;

namespace {

// As nvcc 13 --resource-usage prints it (through capture_ptxas_resources.sh): a template kernel,
// a kernel calling a non-inlined function (whose own properties follow the entry's), a second
// architecture, and an overload pair.
const char* kLog = R"(ptxas info    : Compiling entry function '_ZN8occbench1x3bigILi64EEEvPf' for 'sm_75'
ptxas info    : Function properties for _ZN8occbench1x3bigILi64EEEvPf
    256 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 74 registers, used 0 barriers, 256 bytes cumulative stack size, 360 bytes cmem[0]
ptxas info    : Compiling entry function '_ZN8occbench1x2ukILj8EEEvPf' for 'sm_75'
ptxas info    : Function properties for _ZN8occbench1x2ukILj8EEEvPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 1 barriers, 4096 bytes smem, 360 bytes cmem[0]
ptxas info    : Compiling entry function '_ZN8occbench1y6callerEPf' for 'sm_90'
ptxas info    : Function properties for _ZN8occbench1y6callerEPf
    64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers, 96 bytes cumulative stack size
ptxas info    : Function properties for _ZN8occbench1y6calleeEPfi
    32 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function '_ZN8occbench1x3bigILi64EEEvPf' for 'sm_90'
ptxas info    : Function properties for _ZN8occbench1x3bigILi64EEEvPf
    256 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 80 registers, used 0 barriers, 256 bytes cumulative stack size
ptxas info    : Compiling entry function '_ZN8occbench1y2ovEPf' for 'sm_90'
ptxas info    : Used 10 registers
ptxas info    : Compiling entry function '_ZN8occbench1y2ovEPi' for 'sm_90'
ptxas info    : Used 11 registers, 48 bytes lmem
ptxas info    : Compiling entry function 'plain_c_kernel' for 'sm_90'
ptxas info    : Used 4 registers
)";

}  // namespace

TEST(KernelResources, ParsesPtxasOutput) {
  auto table = KernelResourceTable::parse(kLog, "kernels/x/x.cu");
  ASSERT_EQ(table.kernels().size(), 7u);
  EXPECT_EQ(table.architectures(), (std::vector<int>{75, 90}));

  const auto& big75 = table.kernels()[0];
  EXPECT_EQ(big75.name, "occbench::x::big<64>(float*)");  // the template's "void " is dropped
  EXPECT_EQ(big75.arch, 75);
  EXPECT_EQ(big75.arch_name, "sm_75");
  EXPECT_EQ(big75.source, "kernels/x/x.cu");
  EXPECT_TRUE(big75.complete);
  EXPECT_EQ(big75.registers, 74);
  EXPECT_EQ(big75.stack_frame_bytes, 256u);
  EXPECT_EQ(big75.spill_store_bytes, 8u);
  EXPECT_EQ(big75.spill_load_bytes, 4u);
  EXPECT_EQ(big75.cumulative_stack_bytes, 256u);
  EXPECT_EQ(big75.cmem0_bytes, 360u);
  EXPECT_EQ(big75.local_bytes_per_thread(), 256u);

  const auto& uk = table.lookup("occbench::x::uk<8u>", 75);
  EXPECT_EQ(uk.registers, 8);
  EXPECT_EQ(uk.barriers, 1);
  EXPECT_EQ(uk.static_smem_bytes, 4096u);
  EXPECT_EQ(uk.resources().static_smem_bytes, 4096u);
  EXPECT_EQ(uk.resources().registers_per_thread, 8);
  EXPECT_FALSE(uk.resources().max_dynamic_smem_bytes.has_value());

  // The callee's properties that follow the entry do not overwrite the entry's.
  const auto& caller = table.lookup("occbench::y::caller", 90);
  EXPECT_EQ(caller.stack_frame_bytes, 64u);
  EXPECT_EQ(caller.cumulative_stack_bytes, 96u);
  EXPECT_EQ(caller.registers, 32);

  EXPECT_EQ(table.lookup("occbench::x::big<64>", 90).registers, 80);  // per architecture
  EXPECT_EQ(table.lookup("occbench::y::ov(int*)", 90).lmem_bytes, 48u);
  EXPECT_EQ(table.lookup("occbench::y::ov(int*)", 90).local_bytes_per_thread(), 48u);
  EXPECT_EQ(table.lookup("plain_c_kernel", 90).registers, 4);
}

TEST(KernelResources, DuplicatesAcrossSourcesAreKeptOnce) {
  auto table = KernelResourceTable::parse({{"a.cu", kLog}, {"b.cu", kLog}});
  EXPECT_EQ(table.kernels().size(), 7u);
  EXPECT_EQ(table.lookup("occbench::x::big<64>", 75).source, "a.cu");
}

// NVRTC's log (the H100 machine's, Kernel Tuner's matmul at 32 x 32 threads and 4 x 8 tiles)
// prefixes the properties line with "ptxas ."; its stack frame, where the spills live, counts.
TEST(KernelResources, ParsesNvrtcsPrefixedPropertiesLine) {
  auto table = KernelResourceTable::parse(
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'matmul_kernel' for 'sm_90'\n"
      "ptxas info    : Function properties for matmul_kernel\n"
      "ptxas         .     112 bytes stack frame, 192 bytes spill stores, 152 bytes spill loads\n"
      "ptxas info    : Used 64 registers, used 1 barriers, 112 bytes cumulative stack size, 49152 bytes smem\n");
  ASSERT_EQ(table.kernels().size(), 1u);
  const auto& k = table.kernels()[0];
  EXPECT_EQ(k.stack_frame_bytes, 112u);
  EXPECT_EQ(k.spill_store_bytes, 192u);
  EXPECT_EQ(k.spill_load_bytes, 152u);
  EXPECT_EQ(k.resources().local_bytes_per_thread, 112u);  // what the CUDA runtime reports for it
}

TEST(KernelResources, IncompleteEntriesAreMarked) {
  auto table = KernelResourceTable::parse("ptxas info    : Compiling entry function '_Z1kv' for 'sm_80'\n");
  ASSERT_EQ(table.kernels().size(), 1u);
  EXPECT_FALSE(table.kernels()[0].complete);
}

TEST(KernelResources, NameMatchingNeedsTheWholeNameUpToTheParameters) {
  EXPECT_TRUE(kernel_name_matches("ns::k<4>(float*)", "ns::k<4>"));
  EXPECT_TRUE(kernel_name_matches("ns::k<4>(float*)", "ns::k<4>(float*)"));
  EXPECT_TRUE(kernel_name_matches("ns::k<4, 8u>(float*)", "ns::k<4,8u>"));  // spaces ignored
  EXPECT_FALSE(kernel_name_matches("ns::k<40>(float*)", "ns::k<4"));
  EXPECT_FALSE(kernel_name_matches("ns::k<40>(float*)", "ns::k<4>"));
  EXPECT_FALSE(kernel_name_matches("ns::global_kernel2(float*)", "ns::global_kernel"));
  // ptxas's demangler writes an unsigned template argument as 8u, the host compiler (kernel_ref) as 8.
  EXPECT_TRUE(kernel_name_matches("ns::k<8u>(float*)", "ns::k<8>"));
  EXPECT_TRUE(kernel_name_matches("ns::k<8u, 16ul>(float*)", "ns::k<8,16>"));
  EXPECT_FALSE(kernel_name_matches("ns::k<8u>(float*)", "ns::k<80>"));
  EXPECT_FALSE(kernel_name_matches("ns::k2u<8>(float*)", "ns::k2<8>"));  // an identifier's letters stay
  EXPECT_FALSE(kernel_name_matches("ns::k(float*)", ""));
}

namespace kernel_ref_test {
void plain(float*) {}
template <int kItems, bool kFlag>
void templated(float*) {}
template <unsigned kChunk>
void unsigned_templated(float*) {}
}  // namespace kernel_ref_test

// The name comes from the template argument itself, so it names the function that is launched.
TEST(KernelResources, KernelRefNamesTheFunctionItPointsTo) {
  using namespace kernel_ref_test;
  KernelRef a = kernel_ref<&plain>();
  EXPECT_EQ(a.function, reinterpret_cast<const void*>(&plain));
  EXPECT_EQ(a.name, "kernel_ref_test::plain");
  EXPECT_EQ((kernel_ref<&templated<4, true>>().name), "kernel_ref_test::templated<4, true>");
  EXPECT_TRUE(kernel_name_matches("kernel_ref_test::unsigned_templated<32u>(float*)",
                                  kernel_ref<&unsigned_templated<32>>().name));
  EXPECT_EQ(kernel_name_in_signature("const char* occbench_kernel_signature() [with auto Kernel = ns::k<4>]"), "ns::k<4>");
  EXPECT_EQ(kernel_name_in_signature("const char* occbench_kernel_signature() [Kernel = &ns::k<4>]"), "ns::k<4>");  // clang
  LaunchSpec l;
  l.set_kernel(a);
  EXPECT_EQ(l.kernel, a.function);
  EXPECT_EQ(l.kernel_name, a.name);
}

TEST(KernelResources, LookupSaysWhyItFails) {
  auto table = KernelResourceTable::parse(kLog);
  auto message = [&](std::string_view name, int arch) -> std::string {
    try {
      table.lookup(name, arch);
    } catch (const KernelLookupError& e) {
      return e.what();
    }
    ADD_FAILURE() << name << " was found for sm_" << arch;
    return "";
  };
  EXPECT_NE(message("", 90).find("no kernel_name"), std::string::npos);
  // Not compiled for that architecture: says which it has.
  std::string other = message("occbench::x::uk<8u>", 90);
  EXPECT_NE(other.find("no sm_90"), std::string::npos) << other;
  EXPECT_NE(other.find("sm_75"), std::string::npos) << other;
  // A near miss lists the names that start like it (uk<8> would match uk<8u>: suffixes are ignored).
  std::string near = message("occbench::x::uk", 75);
  EXPECT_NE(near.find("occbench::x::uk<8u>(float*)"), std::string::npos) << near;
  // Overloads need the parameter list.
  std::string several = message("occbench::y::ov", 90);
  EXPECT_NE(several.find("matches 2 kernels"), std::string::npos) << several;
  EXPECT_NE(message("nothing::like_it", 90).find("no kernel name even starts like it"), std::string::npos);
}

TEST(KernelResources, MachineCodeAGpuRuns) {
  std::vector<int> all = {75, 80, 86, 89, 90, 100};
  EXPECT_EQ(sass_arch_for(8, 6, all), 86);
  EXPECT_EQ(sass_arch_for(10, 0, all), 100);
  EXPECT_EQ(sass_arch_for(8, 6, {75, 80, 90}), 80);  // sm_80 code runs on 8.6
  EXPECT_EQ(sass_arch_for(8, 9, {75, 80, 86, 90}), 86);
  EXPECT_EQ(sass_arch_for(8, 0, {86, 90}), std::nullopt);  // newer minor versions do not run on older
  EXPECT_EQ(sass_arch_for(9, 0, {75, 80}), std::nullopt);  // nor other major versions
  EXPECT_EQ(sass_arch_for(7, 5, {}), std::nullopt);
  EXPECT_EQ(arch_list_text({75, 90}), "sm_75, sm_90");
  EXPECT_EQ(arch_list_text({}), "none");
}

TEST(KernelResources, TheBuildHasCodeForEveryArchitectureItLists) {
  auto built = built_cuda_architectures();
  ASSERT_FALSE(built.empty()) << "CUDA_ARCHITECTURES of occbench_kernels was not embedded";
  EXPECT_EQ(built_kernel_resources().architectures(), built)
      << "ptxas reported kernels for " << arch_list_text(built_kernel_resources().architectures()) << " but the build lists "
      << arch_list_text(built);
  for (const auto& k : built_kernel_resources().kernels()) {
    EXPECT_TRUE(k.complete) << k.name << " for " << k.arch_name << ": no register count in ptxas's output";
    EXPECT_GT(k.registers, 0) << k.name << " for " << k.arch_name;
    EXPECT_EQ(k.source.rfind("kernels/", 0), 0u) << k.source;
  }
}

// The guarantee `plan` rests on: every kernel a variant can launch (at every legal template value,
// and at every point of every shipped config) is found, exactly once, for every built architecture.
// A family whose LaunchSpec.kernel_name does not match the demangled name of its kernel fails here.
TEST(KernelResources, EveryRegisteredKernelIsFoundForEveryBuiltArchitecture) {
  const auto& table = built_kernel_resources();
  auto built = built_cuda_architectures();
  std::map<std::string, std::string> names;  // kernel_name -> first point that launches it
  std::set<std::string> variants_reached;
  for (const auto& [point, origin] : test_support::reachable_points(builtin_registry())) {
    if (point.variant->executor != Executor::device || !point.variant->launch) continue;
    variants_reached.insert(point.family->name + "/" + point.variant->name);
    LaunchSpec launch = point.variant->launch(point.params);
    if (!launch.kernel) continue;  // a library call
    EXPECT_FALSE(launch.kernel_name.empty()) << point.id << " (" << origin << ") has a kernel but no kernel_name";
    names.emplace(launch.kernel_name, point.id + " (" + origin + ")");
  }
  for (const auto& family : builtin_registry().families())
    for (const auto& variant : family.variants)
      if (variant.executor == Executor::device && variant.launch)
        EXPECT_TRUE(variants_reached.count(family.name + "/" + variant.name))
            << family.name << "/" << variant.name << ": no legal point of it was reached, so its kernels went unchecked";
  ASSERT_FALSE(names.empty());
  int found = 0;
  for (const auto& [name, where] : names)
    for (int arch : built) {
      try {
        const CompiledKernel& k = table.lookup(name, arch);
        EXPECT_TRUE(k.complete) << name;
        ++found;
      } catch (const KernelLookupError& e) {
        ADD_FAILURE() << "sm_" << arch << ": " << e.what() << "\n  launched by " << where;
      }
    }
  EXPECT_EQ(found, int(names.size() * built.size()));
  std::cout << "[ checked  ] " << names.size() << " kernels x " << built.size() << " architectures (" << arch_list_text(built)
            << ")\n";
}
