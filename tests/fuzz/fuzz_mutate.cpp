// The structure-aware half of the fuzzer's mutations: a JSON input is parsed and one of its values
// replaced by what a hostile or careless user writes (the wrong type, a number beyond its range,
// an expression that divides by zero or assigns, a name of the wrong shape, a value nested deep,
// a key borrowed from elsewhere); a .jsonl's lines are torn, doubled, dropped or swapped too.
#include "tests/fuzz/fuzz_support.hpp"

#include <nlohmann/json.hpp>

#include <random>
#include <string>
#include <vector>

namespace occbench::fuzz {

namespace {

using json = nlohmann::ordered_json;
using Dice = std::mt19937;

std::size_t roll(Dice& dice, std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(dice); }

json nested(std::size_t depth) {
  json value = json::array();
  for (std::size_t i = 0; i < depth; ++i) value = json::array({value});
  return value;
}

// What a hostile user puts where a value was.
json hostile_value(Dice& dice, const json& was) {
  static const char* const kTexts[] = {"", "1/0", "0/0", "block_size = 16", "n <= 16, items <= 1", "(((", "::", "k<", "k<1>>",
                                       "-1", "1e30", "inf", "nan", "n * 1e30", "ceil_div(n, 0)", "n % 0", "..", "\\u0000",
                                       "/dev/zero", "(.*)*(.*)*x", "scale_kernel<{items}", "{", "}", "a.b.c", "timing.median_ms:up"};
  switch (roll(dice, 14)) {
    case 0: return nullptr;
    case 1: return roll(dice, 2) == 0;
    case 2: return -1;
    case 3: return 0;
    case 4: return roll(dice, 2) ? 9223372036854775807LL : -9223372036854775807LL - 1;
    case 5: return 18446744073709551615ULL;
    case 6: return roll(dice, 2) ? 1e308 : -1e308;
    case 7: return 5592405.33;
    case 8: return std::string(kTexts[roll(dice, std::size(kTexts))]);
    case 9: return std::string(200 + roll(dice, 200), 'x');
    case 10: return nested(90 + roll(dice, 30));
    case 11: return json::object();
    case 12: return json::array({was, was});
    default: return was.is_number() ? json(was.get<double>() * (roll(dice, 2) ? -1 : 1e9)) : json(json::array());
  }
}

// Every value of the document, by pointer, so that one can be picked at random.
void collect(json& value, std::vector<json*>& all) {
  all.push_back(&value);
  if (value.is_structured())
    for (auto& child : value) collect(child, all);
}

// One structural change somewhere in `doc`.
void mutate_document(json& doc, Dice& dice) {
  std::vector<json*> all;
  collect(doc, all);
  json& target = *all[roll(dice, all.size())];
  std::size_t choice = roll(dice, 6);
  if (choice == 0 && target.is_object() && !target.empty()) {  // drop a key
    auto it = target.begin();
    std::advance(it, long(roll(dice, target.size())));
    target.erase(it.key());
  } else if (choice == 1 && target.is_object()) {  // borrow a key (and its value) from elsewhere
    json* donor = all[roll(dice, all.size())];
    if (donor->is_object() && !donor->empty()) {
      auto it = donor->begin();
      std::advance(it, long(roll(dice, donor->size())));
      target[it.key()] = it.value();
    }
  } else if (choice == 2 && target.is_array() && !target.empty()) {  // drop or double an element
    std::size_t at = roll(dice, target.size());
    if (roll(dice, 2)) target.erase(at);
    else target.push_back(target[at]);
  } else if (choice == 3) {  // a copy of another value of the document
    json copy = *all[roll(dice, all.size())];
    target = std::move(copy);
  } else {
    target = hostile_value(dice, target);
  }
}

// The input as JSON, or discarded: not JSON, or nested deeper than the mutations may go (the
// mutator's own walk and dump recurse; the commands themselves refuse such inputs).
json parse_shallow(const std::string& text) {
  struct TooDeep {};
  try {
    return json::parse(text, [](int depth, json::parse_event_t, json&) {
      if (depth > 400) throw TooDeep{};
      return true;
    }, false);
  } catch (const TooDeep&) {
    return json(json::value_t::discarded);
  }
}

// A .jsonl: a line mutated as JSON, or torn, doubled, dropped or two swapped.
bool mutate_lines(const std::string& input, Dice& dice, std::string& mutated) {
  std::vector<std::string> lines = lines_of(input);
  if (lines.empty()) return false;
  std::size_t at = roll(dice, lines.size());
  switch (roll(dice, 5)) {
    case 0: lines[at] = lines[at].substr(0, roll(dice, lines[at].size() + 1)); break;
    case 1: lines.insert(lines.begin() + long(at), lines[roll(dice, lines.size())]); break;
    case 2: lines.erase(lines.begin() + long(at)); break;
    case 3: std::swap(lines[at], lines[roll(dice, lines.size())]); break;
    default: {
      json doc = parse_shallow(lines[at]);
      if (doc.is_discarded()) return false;
      mutate_document(doc, dice);
      lines[at] = doc.dump(-1, ' ', false, json::error_handler_t::replace);
    }
  }
  mutated.clear();
  for (const auto& l : lines) mutated += l + "\n";
  return true;
}

}  // namespace

bool mutate_structure(const std::string& target, const std::string& input, unsigned seed, std::string& mutated) {
  Dice dice(seed);
  if (roll(dice, 4) == 0) return false;  // a quarter of the time, libFuzzer's byte-level mutations
  if (target == "jsonl") return mutate_lines(input, dice, mutated);
  if (target != "config" && target != "results") return false;
  json doc = parse_shallow(input);
  if (doc.is_discarded()) return false;
  std::size_t changes = 1 + roll(dice, 3);
  for (std::size_t i = 0; i < changes; ++i) mutate_document(doc, dice);
  mutated = doc.dump(roll(dice, 2) ? 2 : -1, ' ', false, json::error_handler_t::replace);
  return true;
}

}  // namespace occbench::fuzz
