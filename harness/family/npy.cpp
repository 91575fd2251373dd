#include "harness/family/npy.hpp"
#include "harness/core/files.hpp"

#include <fmt/format.h>

#include <fstream>
#include <limits>
#include <iterator>

namespace occbench {

std::uint64_t NpyArray::count() const {
  std::uint64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

namespace {

// The value of 'key' in the header's Python dict literal, as text.
std::string header_field(const std::string& header, const std::string& key) {
  auto at = header.find("'" + key + "'");
  if (at == std::string::npos) return "";
  auto colon = header.find(':', at);
  auto start = header.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos) return "";
  char open = header[start];
  std::size_t end;
  if (open == '\'') end = header.find('\'', start + 1) + 1;
  else if (open == '(') end = header.find(')', start) + 1;
  else end = header.find_first_of(",}", start);
  return header.substr(start, end - start);
}

}  // namespace

NpyArray read_npy(const std::string& path) {
  std::string why;
  std::optional<std::string> bytes = read_file(path, &why);
  if (!bytes) throw NpyError(fmt::format("{}: the file {}; expected a .npy file", path, why));
  std::vector<unsigned char> data(bytes->begin(), bytes->end());
  auto fail = [&](const std::string& what) { throw NpyError(fmt::format("{}: not a usable .npy file: {}", path, what)); };
  if (data.size() < 10 || std::string(data.begin(), data.begin() + 6) != "\x93NUMPY") fail("missing the \\x93NUMPY magic");
  int major = data[6];
  std::size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = data[8] | (std::size_t(data[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12) fail("truncated header");
    header_len = data[8] | (std::size_t(data[9]) << 8) | (std::size_t(data[10]) << 16) | (std::size_t(data[11]) << 24);
    offset = 12;
  } else {
    fail(fmt::format("format version {} (expected 1, 2 or 3)", major));
  }
  if (offset + header_len > data.size()) fail("truncated header");
  std::string header(data.begin() + offset, data.begin() + offset + header_len);
  if (header.find('{') == std::string::npos || header.find('}') == std::string::npos) fail("the header is not a dict");
  NpyArray array;
  std::string descr = header_field(header, "descr");
  if (descr.size() < 3) fail("no 'descr' in the header");
  array.dtype = descr.substr(1, descr.size() - 2);
  if (header_field(header, "fortran_order") != "False") fail("Fortran order (save it with numpy.ascontiguousarray)");
  std::string shape = header_field(header, "shape");
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')') fail("no 'shape' tuple in the header");
  std::uint64_t count = 1;
  for (std::size_t i = 1; i < shape.size();) {
    std::size_t digits = shape.find_first_of("0123456789", i);
    if (digits == std::string::npos) break;
    std::size_t end = std::min(shape.find_first_not_of("0123456789", digits), shape.size());
    std::uint64_t extent = 0;
    for (std::size_t d = digits; d < end; ++d) {
      if (extent > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) fail(fmt::format("a dimension of shape {} is too large", shape));
      extent = extent * 10 + std::uint64_t(shape[d] - '0');
    }
    if (extent != 0 && count > std::numeric_limits<std::uint64_t>::max() / 8 / extent) fail(fmt::format("shape {} is too large", shape));
    count *= extent;
    array.shape.push_back(extent);
    i = end;
  }
  static const std::pair<const char*, std::size_t> kSizes[] = {{"<f4", 4}, {"<f8", 8}, {"<i4", 4}, {"<u4", 4}, {"|u1", 1}, {"<i8", 8}, {"<u8", 8}};
  std::size_t element = 0;
  for (const auto& [name, size] : kSizes)
    if (array.dtype == name) element = size;
  if (element == 0) fail(fmt::format("dtype '{}' (expected <f4, <f8, <i4, <u4, <i8, <u8 or |u1)", array.dtype));
  std::size_t begin = offset + header_len;
  if (data.size() - begin != array.count() * element)
    fail(fmt::format("{} bytes of data for shape {} of {}", data.size() - begin, shape, array.dtype));
  array.bytes.assign(data.begin() + begin, data.end());
  return array;
}

void write_npy(const std::string& path, const NpyArray& array) {
  std::string shape = "(";
  for (auto d : array.shape) shape += fmt::format("{}, ", d);
  if (array.shape.size() > 1) shape.erase(shape.size() - 2);
  else if (array.shape.size() == 1) shape.erase(shape.size() - 1);
  shape += ")";
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", array.dtype, shape);
  std::size_t total = 10 + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::ofstream out(path, std::ios::binary);
  if (!out) throw NpyError(fmt::format("{}: cannot write the .npy file", path));
  out.write("\x93NUMPY\x01\x00", 8);
  unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xFF), static_cast<unsigned char>(header.size() >> 8)};
  out.write(reinterpret_cast<const char*>(len), 2);
  out << header;
  out.write(reinterpret_cast<const char*>(array.bytes.data()), std::streamsize(array.bytes.size()));
}

}  // namespace occbench
