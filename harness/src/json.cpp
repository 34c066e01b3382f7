#include "json.hpp"

#include "error.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

namespace mqlcl::replay {

std::optional<Json> try_read_json_file(const std::filesystem::path &file, std::string &why) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    why = "cannot open the file";
    return std::nullopt;
  }
  try {
    return Json::parse(in);
  } catch (const Json::parse_error &error) {
    why = error.what();
    return std::nullopt;
  }
}

Json read_json_file(const std::filesystem::path &file, const std::string &what) {
  std::string why;
  std::optional<Json> json = try_read_json_file(file, why);
  if (!json)
    bad_input(fmt::format("cannot read {} {}: {}", what, file.string(), why));
  return std::move(*json);
}

std::string json_text(const Json &json, int indent) {
  return json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

void write_json_file(const std::filesystem::path &file, const Json &json) {
  std::ofstream out(file, std::ios::binary);
  out << json_text(json, 4) << '\n';
  if (!out)
    bad_input(fmt::format("cannot write {}", file.string()));
}

const Json *json_at(const Json &json, std::string_view dotted_path) {
  const Json *at = &json;
  while (!dotted_path.empty()) {
    size_t dot = dotted_path.find('.');
    std::string key(dotted_path.substr(0, dot));
    if (!at->is_object())
      return nullptr;
    auto found = at->find(key);
    if (found == at->end())
      return nullptr;
    at = &*found;
    dotted_path = dot == std::string_view::npos ? std::string_view() : dotted_path.substr(dot + 1);
  }
  return at;
}

std::optional<double> as_number(const Json &value) {
  if (value.is_number())
    return value.get<double>();
  if (!value.is_string())
    return std::nullopt;
  const std::string &text = value.get_ref<const std::string &>();
  char *end = nullptr;
  double number = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(number))
    return std::nullopt;
  return number;
}

std::optional<int64_t> as_integer(const Json &value) {
  if (value.is_number_integer())
    return value.get<int64_t>();
  std::optional<double> number = as_number(value);
  if (!number || *number != std::floor(*number))
    return std::nullopt;
  return static_cast<int64_t>(*number);
}

std::string as_text(const Json &value) {
  if (value.is_string())
    return value.get<std::string>();
  if (value.is_null())
    return "";
  return json_text(value, -1);
}

std::optional<double> json_number(const Json &json, std::string_view dotted_path) {
  const Json *value = json_at(json, dotted_path);
  return value != nullptr ? as_number(*value) : std::nullopt;
}

std::optional<int64_t> json_integer(const Json &json, std::string_view dotted_path) {
  const Json *value = json_at(json, dotted_path);
  return value != nullptr ? as_integer(*value) : std::nullopt;
}

std::string json_string(const Json &json, std::string_view dotted_path,
                        const std::string &fallback) {
  const Json *value = json_at(json, dotted_path);
  return value != nullptr && !value->is_null() ? as_text(*value) : fallback;
}

std::optional<bool> json_bool(const Json &json, std::string_view dotted_path) {
  const Json *value = json_at(json, dotted_path);
  if (value == nullptr)
    return std::nullopt;
  if (value->is_boolean())
    return value->get<bool>();
  if (value->is_string() && (*value == "true" || *value == "false"))
    return *value == "true";
  return std::nullopt;
}

} // namespace mqlcl::replay
