#include "harness/sweep/expression.hpp"

#include "harness/sweep/spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <muParser.h>

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

namespace occbench {

namespace {

double ceil_of(double x) { return std::ceil(x); }
double floor_of(double x) { return std::floor(x); }
double ceil_div(double a, double b) { return std::ceil(a / b); }

// What made an expression's value no number (a division by zero): said where the whole value is no
// number, so that "b != 0 && a / b > 1" still guards its division, as in C. (muparser's own '/'
// gave inf, and "block_size / 0 > 1" silently kept every point.)
thread_local const char* g_no_number = nullptr;
double by_zero(const char* what) {
  g_no_number = what;
  return std::numeric_limits<double>::quiet_NaN();
}
double quotient(double a, double b) { return b == 0 ? by_zero("'/' by zero") : a / b; }
// a % 0 is no number (it gave NaN, and "block_size % 0 == 0" silently ruled out every point).
double remainder_of(double a, double b) { return b == 0 ? by_zero("'%' by zero (the remainder of a division by 0 is no number)") : std::fmod(a, b); }
double sum(double a, double b) { return a + b; }
double difference(double a, double b) { return a - b; }
double product(double a, double b) { return a * b; }
double power(double a, double b) { return std::pow(a, b); }
// Comparisons of no number are no truth value; "false && x" is false and "true || x" true whatever x is.
double either_nan(double a, double b) { return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN() : 0; }
double less(double a, double b) { return either_nan(a, b) + (a < b); }
double greater(double a, double b) { return either_nan(a, b) + (a > b); }
double less_equal(double a, double b) { return either_nan(a, b) + (a <= b); }
double greater_equal(double a, double b) { return either_nan(a, b) + (a >= b); }
double equal(double a, double b) { return either_nan(a, b) + (a == b); }
double not_equal(double a, double b) { return either_nan(a, b) + (a != b); }
double logical_and(double a, double b) { return a == 0 || b == 0 ? 0 : either_nan(a, b) + 1; }
double logical_or(double a, double b) {
  return (a != 0 && !std::isnan(a)) || (b != 0 && !std::isnan(b)) ? 1 : either_nan(a, b);
}

// muparser's binary operators replaced by the ones above (its own cannot be redefined one by one),
// with its precedences; unary minus, ?: and the functions stay its own.
void define_operators(mu::Parser& parser) {
  parser.EnableBuiltInOprt(false);
  parser.DefineOprt("||", logical_or, mu::prLOR);
  parser.DefineOprt("&&", logical_and, mu::prLAND);
  using Operator = double (*)(double, double);
  const std::pair<const char*, Operator> comparisons[] = {{"<", less},           {">", greater}, {"<=", less_equal},
                                                          {">=", greater_equal}, {"==", equal},  {"!=", not_equal}};
  for (const auto& [name, f] : comparisons) parser.DefineOprt(name, f, mu::prCMP);
  parser.DefineOprt("+", sum, mu::prADD_SUB);
  parser.DefineOprt("-", difference, mu::prADD_SUB);
  parser.DefineOprt("*", product, mu::prMUL_DIV);
  parser.DefineOprt("/", quotient, mu::prMUL_DIV);
  parser.DefineOprt("%", remainder_of, mu::prMUL_DIV, mu::oaLEFT, true);
  parser.DefineOprt("^", power, mu::prPOW, mu::oaRIGHT);
}

// Where `text` assigns (a lone '=', which muparser takes as "set the variable"), or npos: every
// expression of a config computes; none may change the point's values.
std::size_t assignment_at(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '=') continue;
    bool compares = (i > 0 && std::string("=<>!").find(text[i - 1]) != std::string::npos) ||
                    (i + 1 < text.size() && text[i + 1] == '=');
    if (!compares) return i;
  }
  return std::string::npos;
}

// The text with each quoted string ('half' or "half") replaced by its string_number, so that a
// labelled axis of strings compares with it ("float_type == 'half'"); "" where a quote is not closed.
std::optional<std::string> strings_as_numbers(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\'' && text[i] != '"') {
      out += text[i];
      continue;
    }
    std::size_t end = text.find(text[i], i + 1);
    if (end == std::string::npos) return std::nullopt;
    out += fmt::format("{:.0f}", string_number(std::string_view(text).substr(i + 1, end - i - 1)));
    i = end;
  }
  return out;
}

}  // namespace

struct Expression::Impl {
  std::string text, file, json_path;
  std::vector<std::string> names;
  std::vector<double> values;  // muparser reads the variables from here (stable addresses)
  std::vector<bool> used;      // names[i] is used: found once (muparser's GetUsedVar parses the text again)
  mu::Parser parser;
};

Expression::Expression(const std::string& text, const std::vector<std::string>& variables, const std::string& file,
                       const std::string& json_path)
    : impl_(std::make_shared<Impl>()) {
  Impl& e = *impl_;
  e.text = text;
  e.file = file;
  e.json_path = json_path;
  e.names = variables;
  e.values.assign(variables.size(), 1.0);
  auto refuse = [&](const std::string& what) {
    throw ConfigError(file, json_path, fmt::format("in the expression \"{}\": {}", text, what));
  };
  if (text.find_first_not_of(" \t") == std::string::npos) refuse("it is empty; expected an arithmetic expression");
  if (std::size_t at = assignment_at(text); at != std::string::npos)
    refuse(fmt::format("'=' at position {} assigns; expected a comparison ('==') or arithmetic", at + 1));
  std::optional<std::string> parsed = strings_as_numbers(text);
  if (!parsed) refuse("a quote is not closed; a string is written 'half' or \"half\"");
  try {
    e.parser.DefineFun("ceil", ceil_of);
    e.parser.DefineFun("floor", floor_of);
    e.parser.DefineFun("ceil_div", ceil_div);
    define_operators(e.parser);
    for (std::size_t i = 0; i < variables.size(); ++i) e.parser.DefineVar(variables[i], &e.values[i]);
    e.parser.SetExpr(*parsed);
    e.parser.Eval();  // parses: unknown names and syntax errors surface here
    if (e.parser.GetNumResults() > 1)
      refuse(fmt::format("{} expressions separated by ','; expected one (join conditions with '&&')", e.parser.GetNumResults()));
    auto used = e.parser.GetUsedVar();
    for (const auto& name : variables) e.used.push_back(used.count(name) > 0);
  } catch (const mu::Parser::exception_type& error) {
    std::string token = error.GetToken();
    std::string known = variables.empty() ? "(none)" : fmt::format("{}", fmt::join(variables, ", "));
    if (error.GetCode() == mu::ecUNASSIGNABLE_TOKEN)
      refuse(fmt::format("unknown name '{}' at position {}; the names it may use here: {}", token, error.GetPos() + 1, known));
    refuse(fmt::format("{}{}", error.GetMsg(), token.empty() ? "" : fmt::format(" (at '{}')", token)));
  }
}

const std::string& Expression::text() const {
  static const std::string none;
  return impl_ ? impl_->text : none;
}

std::vector<std::string> Expression::used_variables() const {
  std::vector<std::string> used;
  if (!impl_) return used;
  for (std::size_t i = 0; i < impl_->names.size(); ++i)
    if (impl_->used[i]) used.push_back(impl_->names[i]);
  return used;
}

double Expression::evaluate(const Params& params) const {
  if (!impl_) throw std::logic_error("evaluating an empty expression");
  Impl& e = *impl_;
  for (std::size_t i = 0; i < e.names.size(); ++i) {
    if (!params.has(e.names[i])) {
      // Only names the expression actually uses must have values.
      if (e.used[i])
        throw ConfigError(e.file, e.json_path, fmt::format("the expression \"{}\" uses '{}', which this point does not set ({})",
                                                           e.text, e.names[i], params.to_string()));
      continue;
    }
    e.values[i] = params.number(e.names[i]);  // a labelled axis: its float, boolean or string_number
  }
  try {
    g_no_number = nullptr;
    double value = e.parser.Eval();
    if (std::isnan(value) && g_no_number)
      throw ConfigError(e.file, e.json_path, fmt::format("the expression \"{}\" at {}: {}", e.text, params.to_string(), g_no_number));
    return value;
  } catch (const mu::Parser::exception_type& error) {
    throw ConfigError(e.file, e.json_path, fmt::format("the expression \"{}\" at {}: {}", e.text, params.to_string(), error.GetMsg()));
  }
}

std::int64_t Expression::evaluate_integer(const Params& params, std::int64_t min, std::int64_t max) const {
  double value = evaluate(params);
  // double(max) of a 64-bit bound rounds up to 2^63, which llround cannot return: compare below max + 1.
  if (!std::isfinite(value) || std::abs(value - std::round(value)) > 1e-9 * std::max(1.0, std::abs(value)) ||
      value < double(min) || !(value < double(max) + 1.0))
    throw ConfigError(impl_->file, impl_->json_path, fmt::format("the expression \"{}\" gives {} at {}; expected a whole number in [{}, {}]",
                                                                 impl_->text, value, params.to_string(), min, max));
  return std::int64_t(std::llround(value));
}

std::string expression_library_version() { return mu::ParserVersion; }

}  // namespace occbench
