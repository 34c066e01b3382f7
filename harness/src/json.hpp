// The one JSON library of the harness (nlohmann/json): every file mqlcl-replay reads or writes.
// Objects keep their keys in the order written. Numbers are written as numbers; the readers also
// take the numbers and booleans that older result files hold as strings ("65673.98", "true").
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mqlcl::replay {

using Json = nlohmann::ordered_json;

// The document in `file`, or nothing with the reason in `why` when the file cannot be opened or
// is not JSON.
std::optional<Json> try_read_json_file(const std::filesystem::path &file, std::string &why);

// The document in `file`; throws Error(bad_input) with `what` ("results file", ...) and the
// parser's reason when the file is missing or is not JSON.
Json read_json_file(const std::filesystem::path &file, const std::string &what);

// Writes `json` indented by 4, as the result files in docs/results/ are; throws Error(bad_input)
// when the file cannot be written.
void write_json_file(const std::filesystem::path &file, const Json &json);

// The document as text, indented by `indent`, invalid UTF-8 replaced rather than thrown on.
std::string json_text(const Json &json, int indent);

// The member at a dotted path ("times.total_s.min") of nested objects, or null when a step of
// the path is missing or not an object.
const Json *json_at(const Json &json, std::string_view dotted_path);

// Lenient reads of a member at a dotted path: a number (or a string holding one), a string (or a
// number written as text), a boolean (or "true" / "false").
std::optional<double> json_number(const Json &json, std::string_view dotted_path);
std::optional<int64_t> json_integer(const Json &json, std::string_view dotted_path);
std::string json_string(const Json &json, std::string_view dotted_path,
                        const std::string &fallback = "");
std::optional<bool> json_bool(const Json &json, std::string_view dotted_path);

// The same for a value itself.
std::optional<double> as_number(const Json &value);
std::optional<int64_t> as_integer(const Json &value);
std::string as_text(const Json &value);

} // namespace mqlcl::replay
