#include "harness/compile/cubin.hpp"

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <string_view>

namespace occbench {

namespace {

// A cubin's sections, bounds-checked: each ELF header copied out of the file, or nothing.
class CubinElf {
 public:
  explicit CubinElf(const std::string& cubin) : data_(cubin) {
    if (fits(0, sizeof(Elf64_Ehdr)) && std::memcmp(data_.data(), ELFMAG, SELFMAG) == 0) std::memcpy(&header_, data_.data(), sizeof header_);
  }
  std::size_t sections() const { return header_.e_shnum; }
  std::optional<Elf64_Shdr> section(std::size_t i) const {
    Elf64_Shdr s;
    if (i >= header_.e_shnum || !fits(header_.e_shoff + i * sizeof s, sizeof s)) return std::nullopt;
    std::memcpy(&s, data_.data() + header_.e_shoff + i * sizeof s, sizeof s);
    return s;
  }
  // A NUL-terminated name at `offset` of string table section `table`.
  std::string name(std::size_t table, std::size_t offset) const {
    auto t = section(table);
    if (!t || !fits(t->sh_offset + offset, 1)) return "";
    const char* start = data_.data() + t->sh_offset + offset;
    return std::string(start, strnlen(start, data_.size() - (t->sh_offset + offset)));
  }
  std::string section_name(const Elf64_Shdr& s) const { return name(header_.e_shstrndx, s.sh_name); }
  std::string_view bytes(const Elf64_Shdr& s) const {
    return fits(s.sh_offset, s.sh_size) ? std::string_view(data_.data() + s.sh_offset, s.sh_size) : std::string_view();
  }

 private:
  bool fits(std::size_t offset, std::size_t n) const { return offset <= data_.size() && n <= data_.size() - offset; }
  const std::string& data_;
  Elf64_Ehdr header_{};
};

struct CubinSymbol {
  std::uint32_t index = 0;  // in the symbol table
  Elf64_Sym symbol{};
};

// The first symbol `wanted` accepts (its type and name), or nullopt.
template <class Wanted>
std::optional<CubinSymbol> find_symbol(const CubinElf& elf, Wanted wanted) {
  for (std::size_t i = 0; i < elf.sections(); ++i) {
    auto s = elf.section(i);
    if (!s || s->sh_type != SHT_SYMTAB) continue;
    std::string_view table = elf.bytes(*s);
    for (std::size_t k = 0; (k + 1) * sizeof(Elf64_Sym) <= table.size(); ++k) {
      Elf64_Sym symbol;
      std::memcpy(&symbol, table.data() + k * sizeof symbol, sizeof symbol);
      if (wanted(ELF64_ST_TYPE(symbol.st_info), elf.name(s->sh_link, symbol.st_name))) return CubinSymbol{std::uint32_t(k), symbol};
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::pair<std::string, bool>> cubin_symbol_names(const std::string& cubin) {
  std::vector<std::pair<std::string, bool>> names;
  find_symbol(CubinElf(cubin), [&](int type, const std::string& name) {
    if (type == STT_FUNC || type == STT_OBJECT) names.emplace_back(name, type == STT_FUNC);
    return false;  // every symbol
  });
  return names;
}

std::optional<std::size_t> cubin_symbol_bytes(const std::string& cubin, const std::string& lowered_name) {
  auto found = find_symbol(CubinElf(cubin), [&](int type, const std::string& name) { return type == STT_OBJECT && name == lowered_name; });
  if (!found) return std::nullopt;
  return found->symbol.st_size;
}

std::optional<CubinKernelResources> cubin_kernel_resources(const std::string& cubin, const std::string& lowered_name,
                                                           std::size_t reserved_smem_bytes) {
  constexpr std::uint32_t kCudaInfo = 0x70000000;  // SHT_LOPROC: .nv.info
  constexpr std::uint8_t kValueWithSize = 0x04, kRegCount = 0x2f, kFrameSize = 0x11;  // EIFMT_SVAL, EIATTR_*
  CubinElf elf(cubin);
  std::optional<CubinSymbol> function =
      find_symbol(elf, [&](int type, const std::string& name) { return type == STT_FUNC && name == lowered_name; });
  if (!function) return std::nullopt;
  // Where the module uses the system's reserved shared memory, each kernel's section counts it too.
  bool reserves = find_symbol(elf, [](int, const std::string& name) { return name.rfind(".nv.reservedSmem", 0) == 0; }).has_value();
  CubinKernelResources out;
  bool registers_found = false;
  for (std::size_t i = 0; i < elf.sections(); ++i) {
    auto s = elf.section(i);
    if (!s) return std::nullopt;
    std::string name = elf.section_name(*s);
    if (name == ".nv.shared." + lowered_name)
      out.static_smem_bytes = reserves && s->sh_size >= reserved_smem_bytes ? s->sh_size - reserved_smem_bytes : s->sh_size;
    if (s->sh_type != kCudaInfo || name != ".nv.info") continue;
    std::string_view info = elf.bytes(*s);
    // Attributes: format, attribute, then (EIFMT_SVAL) a 16-bit size and that many bytes; the
    // per-function ones hold the function's symbol index and a 32-bit value.
    for (std::size_t at = 0; at + 4 <= info.size();) {
      std::uint8_t format = std::uint8_t(info[at]), attribute = std::uint8_t(info[at + 1]);
      std::uint16_t size = 0;
      if (format != kValueWithSize) {
        at += format == 0x03 ? 4 : format == 0x02 ? 3 : 2;
        continue;
      }
      std::memcpy(&size, info.data() + at + 2, sizeof size);
      if (size == 8 && at + 12 <= info.size()) {
        std::uint32_t of = 0, value = 0;
        std::memcpy(&of, info.data() + at + 4, 4);
        std::memcpy(&value, info.data() + at + 8, 4);
        if (of == function->index && attribute == kRegCount) out.registers = int(value), registers_found = true;
        if (of == function->index && attribute == kFrameSize) out.stack_frame_bytes = value;
      }
      at += 4 + size;
    }
  }
  if (!registers_found) return std::nullopt;
  return out;
}

}  // namespace occbench
