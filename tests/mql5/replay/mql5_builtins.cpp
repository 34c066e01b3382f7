#include "mql5_runtime.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace mql5rt {

namespace {

unsigned random_state = 1;
int fixed_random = -1;

} // namespace

// ---- text ---------------------------------------------------------------------------------------

std::string to_text(const string &s) {
  return s.utf8();
}
std::string to_text(const char *s) {
  return s;
}
std::string to_text(double d) {
  char text[64];
  std::snprintf(text, sizeof text, "%.16g", d);
  return text;
}
std::string to_text(float f) {
  return to_text(static_cast<double>(f));
}
std::string to_text(bool b) {
  return b ? "true" : "false";
}

format_argument to_format_argument(const string &s) {
  format_argument a;
  a.kind = format_argument::Text;
  a.s = s.utf8();
  return a;
}
format_argument to_format_argument(const char *s) {
  return to_format_argument(string(s));
}

namespace {

long long as_signed(const format_argument &a) {
  switch (a.kind) {
  case format_argument::Unsigned:
    return static_cast<long long>(a.u);
  case format_argument::Floating:
    return static_cast<long long>(a.d);
  case format_argument::Text:
    return std::atoll(a.s.c_str());
  default:
    return a.i;
  }
}
double as_floating(const format_argument &a) {
  switch (a.kind) {
  case format_argument::Unsigned:
    return static_cast<double>(a.u);
  case format_argument::Signed:
    return static_cast<double>(a.i);
  case format_argument::Text:
    return std::atof(a.s.c_str());
  default:
    return a.d;
  }
}
std::string as_text(const format_argument &a) {
  switch (a.kind) {
  case format_argument::Unsigned:
    return std::to_string(a.u);
  case format_argument::Signed:
    return std::to_string(a.i);
  case format_argument::Floating:
    return to_text(a.d);
  default:
    return a.s;
  }
}

// One conversion, printf's way, of the argument it takes.
std::string convert(const std::string &spec, char letter, const format_argument &a) {
  char text[512];
  std::string c = spec;
  switch (letter) {
  case 'd':
  case 'i':
    std::snprintf(text, sizeof text, (c + "lld").c_str(), as_signed(a));
    break;
  case 'u':
  case 'o':
  case 'x':
  case 'X':
    std::snprintf(text, sizeof text, (c + "ll" + letter).c_str(),
                  static_cast<unsigned long long>(as_signed(a)));
    break;
  case 'e':
  case 'E':
  case 'f':
  case 'F':
  case 'g':
  case 'G':
  case 'a':
  case 'A':
    std::snprintf(text, sizeof text, (c + letter).c_str(), as_floating(a));
    break;
  case 'c':
  case 'C':
    return string(std::string(1, static_cast<char>(as_signed(a)))).utf8();
  default: // s, S
    std::snprintf(text, sizeof text, (c + "s").c_str(), as_text(a).c_str());
  }
  return text;
}

} // namespace

std::string format_text(const std::string &format, const std::vector<format_argument> &args) {
  std::string out;
  size_t next = 0;
  auto take = [&]() -> format_argument {
    return next < args.size() ? args[next++] : format_argument{};
  };
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out += format[i];
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    std::string spec = "%";
    for (++i; i < format.size() && std::strchr("-+ #0", format[i]) != nullptr; ++i)
      spec += format[i];
    for (; i < format.size() && (std::isdigit(static_cast<unsigned char>(format[i])) ||
                                 format[i] == '.' || format[i] == '*');
         ++i)
      spec += format[i] == '*' ? std::to_string(as_signed(take())) : std::string(1, format[i]);
    for (const char *size : {"I64", "I32", "ll", "hh", "l", "h"})
      if (format.compare(i, std::strlen(size), size) == 0) {
        i += std::strlen(size);
        break;
      }
    if (i >= format.size())
      break;
    out += convert(spec, format[i], take());
  }
  return out;
}

string DoubleToString(double value, int digits) {
  char text[512];
  std::snprintf(text, sizeof text, "%.*f", std::max(0, std::min(digits, 16)), value);
  return string(text);
}

string IntegerToString(long number, int str_len, ushort fill_symbol) {
  std::string digits = std::to_string(number);
  if (str_len > static_cast<int>(digits.size()))
    digits.insert(0, static_cast<size_t>(str_len) - digits.size(), static_cast<char>(fill_symbol));
  return string(digits);
}

double NormalizeDouble(double value, int digits) {
  double scale = std::pow(10.0, std::max(0, std::min(digits, 8)));
  return std::round(value * scale) / scale;
}

bool StringInit(string &s, int new_len, ushort character) {
  if (new_len < 0)
    return false;
  s.init(new_len, character);
  return true;
}

namespace {

template <class F> bool each_character(string &s, F f) {
  std::u16string t = s.text();
  for (char16_t &c : t)
    if (c < 0x80)
      c = static_cast<char16_t>(f(static_cast<int>(c)));
  s.assign(t);
  return true;
}
bool blank(char16_t c) {
  return c == u' ' || c == u'\t' || c == u'\r' || c == u'\n';
}

} // namespace

bool StringToUpper(string &s) {
  return each_character(s, [](int c) { return std::toupper(c); });
}
bool StringToLower(string &s) {
  return each_character(s, [](int c) { return std::tolower(c); });
}
string StringSubstr(const string &s, int start, int length) {
  std::u16string t = s.text();
  string out;
  if (start >= 0 && static_cast<size_t>(start) < t.size())
    out.assign(t.substr(static_cast<size_t>(start),
                        length < 0 ? std::u16string::npos : static_cast<size_t>(length)));
  return out;
}
int StringFind(const string &s, const string &match, int start) {
  size_t at = s.text().find(match.text(), static_cast<size_t>(std::max(0, start)));
  return at == std::u16string::npos ? -1 : static_cast<int>(at);
}
int StringReplace(string &s, const string &find, const string &replacement) {
  std::u16string t = s.text(), f = find.text(), r = replacement.text();
  if (f.empty())
    return -1;
  int count = 0;
  for (size_t at = t.find(f); at != std::u16string::npos; at = t.find(f, at + r.size())) {
    t.replace(at, f.size(), r);
    ++count;
  }
  s.assign(t);
  return count;
}
int StringSplit(const string &s, ushort separator, array<string> &result) {
  std::u16string t = s.text();
  result.items().clear();
  if (t.empty())
    return 0;
  size_t from = 0;
  for (size_t at = t.find(separator); at != std::u16string::npos; at = t.find(separator, from)) {
    string part;
    part.assign(t.substr(from, at - from));
    result.items().push_back(part);
    from = at + 1;
  }
  string last;
  last.assign(t.substr(from));
  result.items().push_back(last);
  return result.size();
}
ushort StringGetCharacter(const string &s, int pos) {
  std::u16string t = s.text();
  return pos >= 0 && static_cast<size_t>(pos) < t.size() ? t[static_cast<size_t>(pos)] : 0;
}
bool StringSetCharacter(string &s, int pos, ushort character) {
  std::u16string t = s.text();
  if (pos < 0 || static_cast<size_t>(pos) > t.size())
    return false;
  if (static_cast<size_t>(pos) == t.size())
    t += static_cast<char16_t>(character);
  else
    t[static_cast<size_t>(pos)] = static_cast<char16_t>(character);
  s.assign(t);
  return true;
}
int StringTrimLeft(string &s) {
  std::u16string t = s.text();
  size_t n = 0;
  while (n < t.size() && blank(t[n]))
    ++n;
  s.assign(t.substr(n));
  return static_cast<int>(n);
}
int StringTrimRight(string &s) {
  std::u16string t = s.text();
  size_t n = t.size();
  while (n > 0 && blank(t[n - 1]))
    --n;
  s.assign(t.substr(0, n));
  return static_cast<int>(t.size() - n);
}
bool StringAdd(string &s, const string &add) {
  s += add;
  return true;
}
long StringToInteger(const string &s) {
  return std::atol(s.utf8().c_str());
}
double StringToDouble(const string &s) {
  return std::atof(s.utf8().c_str());
}
string ShortToString(ushort character) {
  string out;
  out.assign(std::u16string(1, static_cast<char16_t>(character)));
  return out;
}
string CharArrayToString(const array<uchar> &data, int start, int count, uint) {
  std::string bytes;
  int end = count < 0 ? data.size() : std::min(data.size(), start + count);
  for (int k = std::max(0, start); k < end && data[k] != 0; ++k)
    bytes += static_cast<char>(data[k]);
  return string(bytes);
}

// ---- program and terminal -----------------------------------------------------------------------

long TerminalInfoInteger(ENUM_TERMINAL_INFO_INTEGER property) {
  switch (property) {
  case TERMINAL_DLLS_ALLOWED:
    return 1;
  case TERMINAL_CPU_CORES:
    return std::thread::hardware_concurrency();
  case TERMINAL_OPENCL_SUPPORT: // as a terminal on this machine, which has an OpenCL device
    return 0x00010002;
  default:
    return 0;
  }
}
long MQLInfoInteger(ENUM_MQL_INFO_INTEGER property) {
  return property == MQL_DLLS_ALLOWED ? 1 : 0;
}

// ---- math and time ------------------------------------------------------------------------------

void MathSrand(int seed) {
  random_state = static_cast<unsigned>(seed);
}

void fix_rand(int value) {
  fixed_random = value;
}
void unfix_rand() {
  fixed_random = -1;
}

int MathRand() { // 0 to 32767, as MQL5's
  if (fixed_random >= 0)
    return fixed_random;
  random_state = random_state * 214013u + 2531011u;
  return static_cast<int>((random_state >> 16) & 0x7FFF);
}

uint GetTickCount() {
  return static_cast<uint>(GetTickCount64());
}
ulong GetTickCount64() {
  using namespace std::chrono;
  return static_cast<ulong>(
      duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count());
}
ulong GetMicrosecondCount() {
  using namespace std::chrono;
  return static_cast<ulong>(
      duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count());
}

datetime TimeLocal() {
  return static_cast<datetime>(std::time(nullptr));
}
datetime TimeCurrent() {
  return TimeLocal();
}
string TimeToString(datetime time, int flags) {
  std::time_t t = static_cast<std::time_t>(time);
  std::tm local{};
  localtime_r(&t, &local);
  std::string format = (flags & TIME_DATE) != 0 ? "%Y.%m.%d" : "";
  if ((flags & (TIME_MINUTES | TIME_SECONDS)) != 0)
    format += std::string(format.empty() ? "" : " ") +
              ((flags & TIME_SECONDS) != 0 ? "%H:%M:%S" : "%H:%M");
  char text[32];
  std::strftime(text, sizeof text, format.c_str(), &local);
  return string(text);
}

} // namespace mql5rt
