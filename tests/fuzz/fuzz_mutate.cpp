// The structure-aware half of the fuzzer's mutations: a JSON input is parsed and one of its values
// replaced by what a hostile or careless user writes (the wrong type, a number beyond its range,
// an expression that divides by zero or assigns, a name of the wrong shape, a value nested deep,
// a key borrowed from elsewhere); a .jsonl's lines are torn, doubled, dropped or swapped too. A
// config also grows toward large spaces (many axes, thousands of values or sizes, restrictions over
// every axis), and results and logs take in another sweep's records.
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

// A config grown toward what bounds must hold (issue 59): many axes, long value lists, many sizes,
// a restriction reading every axis, values of every JSON kind in an axis.
void grow_config(json& doc, Dice& dice) {
  for (const char* key : {"axes", "sizes"})
    if (!doc.contains(key) || !doc[key].is_object()) doc[key] = json::object();
  json& axes = doc[roll(dice, 3) == 0 ? "sizes" : "axes"];
  switch (roll(dice, 4)) {
    case 0: {  // many axes of ten values: 10^k combinations beside the config's own
      std::size_t count = 4 + roll(dice, 16);
      for (std::size_t a = 0; a < count; ++a) {
        json values = json::array();
        for (int v = 1; v <= 10; ++v) values.push_back(v * (1 + int(roll(dice, 4))) + int(a));
        axes["g" + std::to_string(a)] = values;
      }
      break;
    }
    case 1:  // one axis (or size) of thousands of values
      if (!axes.empty()) {
        json values = json::array();
        std::size_t count = 1000 + roll(dice, 9000);
        for (std::size_t v = 1; v <= count; ++v) values.push_back(std::int64_t(v) * 32);
        axes[axes.begin().key()] = values;
      }
      break;
    case 2: {  // a restriction that reads every axis, or none
      std::string sum = "0";
      for (const auto& item : axes.items()) sum += " + " + item.key();
      json restriction = roll(dice, 2) ? json(sum + " > 0") : json("_pi > 3");
      if (!doc.contains("restrictions") || !doc["restrictions"].is_array()) doc["restrictions"] = json::array();
      doc["restrictions"].push_back(restriction);
      break;
    }
    default:  // an axis of strings, floats and booleans beside integers
      axes["mixed"] = json::array({"float", 0.5, true, 7, "half/2", "x'y"});
  }
}

// A results document or log that is another sweep's, or a bogus one's.
void make_foreign(json& doc, Dice& dice) {
  std::vector<json*> all;
  collect(doc, all);
  // Last collected first: an object's new point_id may replace a subtree holding others collected.
  for (auto it = all.rbegin(); it != all.rend(); ++it)
    if (json* value = *it; value->is_object() && value->contains("point_id") && roll(dice, 3) == 0)
      (*value)["point_id"] = "other_family/other_variant/n=" + std::to_string(roll(dice, 100000));
  if (doc.is_object() && roll(dice, 2)) doc["shard"] = roll(dice, 2) ? json(3) : json("7/0");
  if (doc.is_object() && doc.contains("run") && doc["run"].is_object()) doc["run"]["strategy"] = {{"name", "bogus"}, {"max_points", -1}};
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
      if (roll(dice, 4) == 0) make_foreign(doc, dice);  // another sweep's record or header
      else mutate_document(doc, dice);
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
  if (roll(dice, 4) == 0) {  // a quarter of the time toward large spaces, many sizes and foreign records
    if (target == "config" && doc.is_object()) grow_config(doc, dice);
    else make_foreign(doc, dice);
  }
  mutated = doc.dump(roll(dice, 2) ? 2 : -1, ' ', false, json::error_handler_t::replace);
  return true;
}

}  // namespace occbench::fuzz
