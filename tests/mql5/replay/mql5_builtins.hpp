// MQL5's constants and built-in functions for the translated programs (mql5/builtins.txt lists
// them with their MQL5 Reference pages; mql5-translate maps those names here). M_PI, INT_MAX,
// DBL_MAX and the like are C's own macros, with MQL5's values.
#pragma once

#include <chrono>
#include <thread>
#include <utility>

namespace mql5rt {

// ---- constants ----------------------------------------------------------------------------------

constexpr int WHOLE_ARRAY = -1;
constexpr int INVALID_HANDLE = -1;
constexpr double EMPTY_VALUE = DBL_MAX;
constexpr int SHORT_MAX = 32767;
constexpr int SHORT_MIN = -32768;
constexpr int USHORT_MAX = 65535;
constexpr int TIME_DATE = 1; // TimeToString's flags
constexpr int TIME_MINUTES = 2;
constexpr int TIME_SECONDS = 4;
constexpr uint CP_ACP = 0;
constexpr uint CP_UTF8 = 65001;
// Error codes (MQL5 Reference, Runtime Errors).
constexpr int ERR_SUCCESS = 0;
constexpr int ERR_INVALID_PARAMETER = 4003;
constexpr int ERR_FUNCTION_NOT_ALLOWED = 4014;
constexpr int ERR_USER_ERROR_FIRST = 65536;

// The terminal's own OpenCL constants, which include/mqlcl/OpenCL.mqh maps onto mqlcl's by name.
// MetaQuotes does not publish their values; these are the stand-in's, chosen unlike mqlcl's (and
// the memory flags unlike the Khronos bits) so that a constant passed through unmapped shows in
// the replay as a wrong device, flag or property.
constexpr int CL_USE_ANY = 0x7FFF0001;
constexpr int CL_USE_CPU_ONLY = 0x7FFF0002;
constexpr int CL_USE_GPU_ONLY = 0x7FFF0003;
constexpr int CL_USE_GPU_DOUBLE_ONLY = 0x7FFF0004;
constexpr uint CL_MEM_READ_WRITE = 0x100;
constexpr uint CL_MEM_WRITE_ONLY = 0x200;
constexpr uint CL_MEM_READ_ONLY = 0x400;
constexpr uint CL_MEM_ALLOC_HOST_PTR = 0x800;
enum ENUM_OPENCL_PROPERTY_INTEGER {
  CL_DEVICE_COUNT = 1000,
  CL_DEVICE_TYPE,
  CL_DEVICE_VENDOR_ID,
  CL_DEVICE_MAX_COMPUTE_UNITS,
  CL_DEVICE_MAX_CLOCK_FREQUENCY,
  CL_DEVICE_GLOBAL_MEM_SIZE,
  CL_DEVICE_LOCAL_MEM_SIZE,
  CL_BUFFER_SIZE,
  CL_DEVICE_MAX_WORK_GROUP_SIZE,
  CL_KERNEL_WORK_GROUP_SIZE,
  CL_KERNEL_LOCAL_MEM_SIZE,
  CL_KERNEL_PRIVATE_MEM_SIZE,
  CL_LAST_ERROR
};
enum ENUM_OPENCL_PROPERTY_STRING {
  CL_PLATFORM_PROFILE = 2000,
  CL_PLATFORM_VERSION,
  CL_PLATFORM_VENDOR,
  CL_PLATFORM_EXTENSIONS,
  CL_DEVICE_NAME,
  CL_DEVICE_VENDOR,
  CL_DRIVER_VERSION,
  CL_DEVICE_PROFILE,
  CL_DEVICE_VERSION,
  CL_DEVICE_EXTENSIONS,
  CL_DEVICE_BUILT_IN_KERNELS,
  CL_DEVICE_OPENCL_C_VERSION,
  CL_ERROR_DESCRIPTION,
  CL_PLATFORM_NAME
};
// CLExecutionStatus's results (documented).
constexpr int CL_COMPLETE = 0;
constexpr int CL_RUNNING = 1;
constexpr int CL_SUBMITTED = 2;
constexpr int CL_QUEUED = 3;

// OnInit's results.
enum ENUM_INIT_RETCODE {
  INIT_SUCCEEDED = 0,
  INIT_FAILED = 1,
  INIT_PARAMETERS_INCORRECT = 32767,
  INIT_AGENT_NOT_SUITABLE = 32766
};

// Object pointers (CheckPointer).
enum ENUM_POINTER_TYPE { POINTER_INVALID, POINTER_DYNAMIC, POINTER_AUTOMATIC };

// Terminal and program properties; stand-in values.
enum ENUM_TERMINAL_INFO_INTEGER {
  TERMINAL_DLLS_ALLOWED = 3000,
  TERMINAL_OPENCL_SUPPORT,
  TERMINAL_CPU_CORES
};
enum ENUM_MQL_INFO_INTEGER { MQL_DLLS_ALLOWED = 3100, MQL_TESTER, MQL_OPTIMIZATION, MQL_DEBUG };

// Charts, objects and resources: stand-in values (the functions are not performed here).
enum ENUM_CHART_PROPERTY_INTEGER { CHART_WIDTH_IN_PIXELS = 4000, CHART_HEIGHT_IN_PIXELS };
enum ENUM_OBJECT { OBJ_BITMAP_LABEL = 4100, OBJ_LABEL };
enum ENUM_OBJECT_PROPERTY_INTEGER { OBJPROP_XDISTANCE = 4200, OBJPROP_YDISTANCE, OBJPROP_COLOR };
enum ENUM_OBJECT_PROPERTY_STRING { OBJPROP_BMPFILE = 4300, OBJPROP_TEXT };
enum ENUM_COLOR_FORMAT { COLOR_FORMAT_XRGB_NOALPHA = 4400, COLOR_FORMAT_ARGB_NORMALIZE };
// Web colors are 0x00BBGGRR (MQL5 Reference, Web Colors).
constexpr color clrBlack = 0x000000;
constexpr color clrWhite = 0xFFFFFF;
constexpr color clrRed = 0x0000FF;
constexpr color clrGreen = 0x008000;
constexpr color clrBlue = 0xFF0000;
constexpr color clrGray = 0x808080;
constexpr color clrNONE = 0xFFFFFFFF;
enum ENUM_BASE_CORNER { CORNER_LEFT_UPPER = 4500, CORNER_RIGHT_UPPER };
enum ENUM_ANCHOR_POINT { ANCHOR_LEFT_UPPER = 4600, ANCHOR_CENTER };
constexpr uint TA_LEFT = 0, TA_TOP = 0, TA_CENTER = 6, TA_RIGHT = 2; // TextOut's alignment
constexpr int FW_NORMAL = 400, FW_BOLD = 700;                        // TextSetFont's weights

// ---- text ---------------------------------------------------------------------------------------

std::string to_text(const string &s);
std::string to_text(const char *s);
std::string to_text(double d);
std::string to_text(float f);
std::string to_text(bool b);
inline std::string to_text(bool_cell b) {
  return to_text(b.value);
}
template <class T> std::string to_text(T integer) {
  return std::to_string(integer);
}

void print_line(const std::string &line);
template <class... Args> void Print(const Args &...args) {
  std::string line;
  ((line += to_text(args)), ...);
  print_line(line);
}
template <class... Args> void Alert(const Args &...args) {
  std::string line = "Alert: ";
  ((line += to_text(args)), ...);
  print_line(line);
}

// One argument of StringFormat or PrintFormat.
struct format_argument {
  enum Kind { Signed, Unsigned, Floating, Text } kind = Signed;
  long long i = 0;
  unsigned long long u = 0;
  double d = 0;
  std::string s;
};
format_argument to_format_argument(const string &s);
format_argument to_format_argument(const char *s);
template <class T> format_argument to_format_argument(T value) {
  format_argument a;
  if constexpr (std::is_floating_point_v<T>) {
    a.kind = format_argument::Floating;
    a.d = value;
  } else if constexpr (std::is_unsigned_v<T>) {
    a.kind = format_argument::Unsigned;
    a.u = value;
  } else {
    a.i = static_cast<long long>(value);
  }
  return a;
}
// printf's conversions (d i u o x X e E f g G c s %, with flags, width, precision, * and the
// h l ll I32 I64 sizes), each argument converted to what its conversion takes.
std::string format_text(const std::string &format, const std::vector<format_argument> &args);
template <class... Args> string StringFormat(const string &format, const Args &...args) {
  return string(format_text(format.utf8(), {to_format_argument(args)...}));
}
template <class... Args> void PrintFormat(const string &format, const Args &...args) {
  print_line(format_text(format.utf8(), {to_format_argument(args)...}));
}

string DoubleToString(double value, int digits = 8);
string IntegerToString(long number, int str_len = 0, ushort fill_symbol = ' ');
double NormalizeDouble(double value, int digits);
bool StringInit(string &s, int new_len = 0, ushort character = 0);
inline int StringLen(const string &s) {
  return s.length();
}
inline int StringBufferLen(const string &s) {
  return s.buffer_length();
}
bool StringToUpper(string &s); // ASCII letters; others stay as they are
bool StringToLower(string &s);
string StringSubstr(const string &s, int start, int length = -1);
int StringFind(const string &s, const string &match, int start = 0);
int StringReplace(string &s, const string &find, const string &replacement);
int StringSplit(const string &s, ushort separator, array<string> &result);
ushort StringGetCharacter(const string &s, int pos);
bool StringSetCharacter(string &s, int pos, ushort character);
int StringTrimLeft(string &s);
int StringTrimRight(string &s);
bool StringAdd(string &s, const string &add);
long StringToInteger(const string &s);
double StringToDouble(const string &s);
string ShortToString(ushort character);
string CharArrayToString(const array<uchar> &data, int start = 0, int count = -1,
                         uint codepage = CP_ACP);

// ---- errors, program and terminal -------------------------------------------------------------

inline int GetLastError() {
  return last_error();
}
inline void ResetLastError() {
  last_error() = 0;
}
inline void SetUserError(ushort code) {
  last_error() = ERR_USER_ERROR_FIRST + code;
}
inline bool IsStopped() {
  return false;
}
long TerminalInfoInteger(ENUM_TERMINAL_INFO_INTEGER property);
long MQLInfoInteger(ENUM_MQL_INFO_INTEGER property);

// ---- math ---------------------------------------------------------------------------------------

void MathSrand(int seed);
int MathRand();
// For tests: MathRand() returns `value` (0 to 32767) from now on, until unfix_rand().
void fix_rand(int value);
void unfix_rand();
template <class A, class B, class = std::enable_if_t<is_number_v<A> && is_number_v<B>>>
auto MathMax(A a, B b) {
  return a > b ? a : b;
}
template <class A, class B, class = std::enable_if_t<is_number_v<A> && is_number_v<B>>>
auto MathMin(A a, B b) {
  return a < b ? a : b;
}
template <class A, class = std::enable_if_t<is_number_v<A>>> A MathAbs(A a) {
  return a < 0 ? -a : a;
}
inline double MathArccos(double x) {
  return std::acos(x);
}
inline double MathArcsin(double x) {
  return std::asin(x);
}
inline double MathArctan(double x) {
  return std::atan(x);
}
inline double MathCeil(double x) {
  return std::ceil(x);
}
inline double MathCos(double x) {
  return std::cos(x);
}
inline double MathExp(double x) {
  return std::exp(x);
}
inline double MathFloor(double x) {
  return std::floor(x);
}
inline bool MathIsValidNumber(double x) {
  return std::isfinite(x);
}
inline double MathLog(double x) {
  return std::log(x);
}
inline double MathLog10(double x) {
  return std::log10(x);
}
inline double MathMod(double x, double y) {
  return std::fmod(x, y);
}
inline double MathPow(double base, double exponent) {
  return std::pow(base, exponent);
}
inline double MathRound(double x) {
  return std::round(x);
}
inline double MathSin(double x) {
  return std::sin(x);
}
inline double MathSqrt(double x) {
  return std::sqrt(x);
}
inline double MathTan(double x) {
  return std::tan(x);
}
inline double MathTanh(double x) {
  return std::tanh(x);
}

// ---- time ---------------------------------------------------------------------------------------

uint GetTickCount();
ulong GetTickCount64();
ulong GetMicrosecondCount();
datetime TimeLocal();
datetime TimeCurrent();
// "yyyy.mm.dd hh:mi" (TIME_DATE | TIME_MINUTES), and :ss with TIME_SECONDS.
string TimeToString(datetime time, int flags = 3);
inline void Sleep(int milliseconds) {
  std::this_thread::sleep_for(std::chrono::milliseconds(std::max(0, milliseconds)));
}

// ---- arrays -------------------------------------------------------------------------------------

template <class T> int ArraySize(const array<T> &a) {
  return a.size();
}
template <class T> int ArrayResize(array<T> &a, int new_size, int = 0) {
  if (a.is_fixed() || new_size < 0)
    return a.is_fixed() && new_size == a.size() ? new_size : -1;
  a.items().resize(static_cast<size_t>(new_size));
  return new_size;
}
// MQL5 sets AS_SERIES on dynamic arrays only.
template <class T> bool ArraySetAsSeries(array<T> &a, bool flag) {
  if (a.is_fixed())
    return false;
  a.set_series(flag);
  return true;
}
template <class T> bool ArrayGetAsSeries(const array<T> &a) {
  return a.is_series();
}
template <class T> void ArrayFree(array<T> &a) {
  if (!a.is_fixed())
    a.items().clear();
}
template <class T, class V> int ArrayInitialize(array<T> &a, V value) {
  std::fill(a.items().begin(), a.items().end(), static_cast<T>(value));
  return a.size();
}
template <class T, size_t R, size_t C, class V> int ArrayInitialize(T (&a)[R][C], V value) {
  for (auto &row : a)
    for (T &item : row)
      item = static_cast<T>(value);
  return static_cast<int>(R * C);
}
// count elements from a[start] (as the program indexes them) set to value.
template <class T, class V> void ArrayFill(array<T> &a, int start, int count, V value) {
  for (int k = 0; k < count; ++k)
    a[start + k] = static_cast<T>(value);
}
// src[src_start...] into dst[dst_start...]; a dynamic dst grows to take them. The number copied.
template <class T, class U>
int ArrayCopy(array<T> &dst, const array<U> &src, int dst_start = 0, int src_start = 0,
              int count = WHOLE_ARRAY) {
  int available = std::max(0, src.size() - src_start);
  int n = count < 0 ? available : std::min(count, available);
  if (dst_start + n > dst.size()) {
    if (dst.is_fixed())
      n = std::max(0, dst.size() - dst_start);
    else
      dst.items().resize(static_cast<size_t>(dst_start + n));
  }
  for (int k = 0; k < n; ++k)
    dst[dst_start + k] = static_cast<T>(src[src_start + k]);
  return n;
}
// Ascending as the program indexes the array (a series array descends in memory).
template <class T> bool ArraySort(array<T> &a) {
  if (a.is_series())
    std::sort(a.items().rbegin(), a.items().rend());
  else
    std::sort(a.items().begin(), a.items().end());
  return true;
}
template <class T, class Better>
int array_best(const array<T> &a, int start, int count, Better better) {
  int end = count < 0 ? a.size() : std::min(a.size(), start + count);
  int best = start < end ? start : -1;
  for (int k = start + 1; k < end; ++k)
    if (better(a[k], a[best]))
      best = k;
  return best;
}
template <class T> int ArrayMaximum(const array<T> &a, int start = 0, int count = WHOLE_ARRAY) {
  return array_best(a, start, count, [](const T &x, const T &y) { return x > y; });
}
template <class T> int ArrayMinimum(const array<T> &a, int start = 0, int count = WHOLE_ARRAY) {
  return array_best(a, start, count, [](const T &x, const T &y) { return x < y; });
}

// Zeros a variable: a struct's fields, an array's elements (a string becomes empty).
template <class T> void ZeroMemory(array<T> &a) {
  std::fill(a.items().begin(), a.items().end(), typename array<T>::cell{});
}
template <class T> void ZeroMemory(T &value) {
  value = T{};
}

// ---- object pointers ----------------------------------------------------------------------------

template <class T> T *GetPointer(T &object) {
  return &object;
}
template <class T> T *GetPointer(T *pointer) {
  return pointer;
}
// The replay cannot tell a pointer to an automatic object from one new gave: both are dynamic.
template <class T> ENUM_POINTER_TYPE CheckPointer(const T *pointer) {
  return pointer == nullptr ? POINTER_INVALID : POINTER_DYNAMIC;
}

// ---- what only the terminal can do: charts, objects, resources ------------------------------

// Says in the journal, once per program run and function, that `name` needs the terminal and was
// not performed; the call fails with ERR_FUNCTION_NOT_ALLOWED.
void not_performed(const char *name);
// The functions reported so far in this run.
const std::vector<std::string> &not_performed_calls();

inline long ChartID() {
  not_performed("ChartID");
  return 0;
}
inline void ChartRedraw(long = 0) {
  not_performed("ChartRedraw");
}
inline long ChartGetInteger(long, ENUM_CHART_PROPERTY_INTEGER, int = 0) {
  not_performed("ChartGetInteger");
  return 0;
}
inline bool ChartSetInteger(long, ENUM_CHART_PROPERTY_INTEGER, long) {
  not_performed("ChartSetInteger");
  return false;
}
template <class... Points>
bool ObjectCreate(long, const string &, ENUM_OBJECT, int, const Points &...) {
  not_performed("ObjectCreate");
  return false;
}
inline bool ObjectDelete(long, const string &) {
  not_performed("ObjectDelete");
  return false;
}
inline bool ObjectSetInteger(long, const string &, ENUM_OBJECT_PROPERTY_INTEGER, long) {
  not_performed("ObjectSetInteger");
  return false;
}
inline bool ObjectSetString(long, const string &, ENUM_OBJECT_PROPERTY_STRING, const string &) {
  not_performed("ObjectSetString");
  return false;
}
inline bool ResourceCreate(const string &, const array<uint> &, uint, uint, uint, uint, uint,
                           ENUM_COLOR_FORMAT) {
  not_performed("ResourceCreate");
  return false;
}
inline bool ResourceFree(const string &) {
  not_performed("ResourceFree");
  return false;
}
template <class... Args> void Comment(const Args &...) {
  not_performed("Comment");
}
// The rest of what canvases and charts call, with any arguments: failing as the above.
#define MQL5RT_NOT_PERFORMED(result, name, value)                                                  \
  template <class... Args> result name(const Args &...) {                                          \
    not_performed(#name);                                                                          \
    return value;                                                                                  \
  }
MQL5RT_NOT_PERFORMED(bool, ChartSetString, false)
MQL5RT_NOT_PERFORMED(int, ObjectFind, -1)
MQL5RT_NOT_PERFORMED(long, ObjectGetInteger, 0)
MQL5RT_NOT_PERFORMED(bool, ObjectSetDouble, false)
MQL5RT_NOT_PERFORMED(int, ObjectsDeleteAll, 0)
MQL5RT_NOT_PERFORMED(bool, ResourceReadImage, false)
MQL5RT_NOT_PERFORMED(bool, TextGetSize, false)
MQL5RT_NOT_PERFORMED(bool, TextOut, false)
MQL5RT_NOT_PERFORMED(bool, TextSetFont, false)
#undef MQL5RT_NOT_PERFORMED
// 0x00BBGGRR with an alpha as 0xAARRGGBB: a computation, performed.
inline uint ColorToARGB(color c, uchar alpha = 255) {
  return (uint(alpha) << 24) | ((c & 0xFF) << 16) | (c & 0xFF00) | ((c >> 16) & 0xFF);
}

} // namespace mql5rt
