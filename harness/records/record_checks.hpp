#pragma once
// What commands read of a results document, a record and a .jsonl header, checked where the file
// is read: a field of the wrong type (nlohmann's value() threw type_error.302 deep inside merge,
// best or report), a negative time. Each refusal is a JSON path and what was expected.
#include "harness/core/json.hpp"

#include <string>

namespace occbench {

// "an object", "a string", "null": a JSON value's type as a message says it.
std::string json_type_name(const ordered_json& value);

// Why a point's record cannot be read as one occbench wrote, or "": the JSON path in it (".timing.median_ms")
// and what was expected. The fields that reports, comparisons, best and the searches read must
// have their types (status a string, params an object of numbers and strings, each section an
// object), and a time cannot be negative: such a record is bad input, never a result.
std::string record_problem(const ordered_json& record);
// The same for a results document's blocks besides its records (tool, run, device, config, a
// merged document's devices and runs), and for a .jsonl's header: "$.run.wall_s: expected a number, got a boolean".
std::string document_problem(const ordered_json& document);

}  // namespace occbench
