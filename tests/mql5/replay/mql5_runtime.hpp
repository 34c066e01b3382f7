// The part of MQL5 the translated scripts need (mql5_translate.cpp writes them): its string and
// array types, the built-ins the scripts call, and #import the way MetaTrader does it - load the
// library by name, find each function by its undecorated name before the script starts, and call
// it with the parameter types of the MQL5 declaration (not of the C header).
//
// This is a stand-in for the terminal, not a second implementation of MQL5: what it does not
// need, it does not have, and a script that uses more fails to compile here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace mql5rt {

static_assert(sizeof(long) == 8, "MQL5's long is 64-bit: the replay needs an LP64 host");
using uchar = std::uint8_t;
using ushort = std::uint16_t;
using uint = std::uint32_t;
using ulong = std::uint64_t;
using datetime = std::int64_t;
using color = std::uint32_t;

// What stops an MQL5 program ("array out of range", "Cannot find 'F' in 'x.dll'").
struct critical_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- string: UTF-16 in a buffer that may be longer than the text (StringInit), whose end is the
// first NUL - MQL5's own representation, which is what lets a DLL write into a `string &`.
class string {
public:
  string() = default;
  string(const char *utf8);
  string(const std::string &utf8) : string(utf8.c_str()) {}

  std::u16string text() const;
  std::string utf8() const;
  int length() const { return static_cast<int>(text().size()); }
  int buffer_length() const { return static_cast<int>(buffer_.size()); }
  void init(int length, ushort fill) { buffer_.assign(static_cast<size_t>(length), fill); }

  // `string &` parameter: the DLL writes into this buffer (and its terminator) in place.
  char16_t *dll_buffer() { return buffer_.data(); }
  // `string` parameter: the DLL gets a copy of the text.
  std::u16string dll_copy() const { return text(); }

  string &operator+=(const string &other);
  friend string operator+(const string &a, const string &b) { return string(a) += b; }
  friend bool operator==(const string &a, const string &b) { return a.text() == b.text(); }
  friend bool operator!=(const string &a, const string &b) { return !(a == b); }

private:
  std::u16string buffer_;
};

// ---- array: dynamic (T a[]) or static (T a[N]); an index outside it stops the program.
template <class T> class array {
public:
  array() = default;
  static array fixed(long size, std::initializer_list<T> values = {}) {
    array a;
    a.items_.assign(static_cast<size_t>(size), T{});
    std::copy(values.begin(), values.end(), a.items_.begin());
    a.fixed_ = true;
    return a;
  }
  static array of(std::initializer_list<T> values) {
    array a;
    a.items_.assign(values.begin(), values.end());
    return a;
  }
  // A series array (ArraySetAsSeries) is indexed from its end: a[0] is the last in memory.
  T &operator[](long i) { return items_[physical(i)]; }
  const T &operator[](long i) const { return items_[physical(i)]; }
  int size() const { return static_cast<int>(items_.size()); }
  bool is_fixed() const { return fixed_; }
  bool is_series() const { return series_; }
  void set_series(bool series) { series_ = series; }
  std::vector<T> &items() { return items_; }
  const std::vector<T> &items() const { return items_; }
  // `T &a[]` parameter: a pointer to the first element, and nothing about the length.
  T *dll_data() { return items_.data(); }
  const T *dll_data() const { return items_.data(); }

private:
  size_t checked(long i) const {
    if (i < 0 || static_cast<size_t>(i) >= items_.size())
      throw critical_error("array out of range: index " + std::to_string(i) + " of " +
                           std::to_string(items_.size()));
    return static_cast<size_t>(i);
  }
  size_t physical(long i) const {
    size_t index = checked(i);
    return series_ ? items_.size() - 1 - index : index;
  }
  std::vector<T> items_;
  bool fixed_ = false;
  bool series_ = false;
};

// ---- matrix (double) and matrixf (float): rows x cols elements in row-major order, which is how
// MQL5 passes one to a DLL (a pointer to its first element); m[r][c] outside it stops the program.
template <class T> class matrix_of {
public:
  template <class M, class E> class row {
  public:
    row(M &m, long r) : m_(m), r_(r) {}
    E &operator[](long c) const { return m_.items_[m_.checked(r_, c)]; }

  private:
    M &m_;
    long r_;
  };
  row<matrix_of, T> operator[](long r) { return {*this, r}; }
  row<const matrix_of, const T> operator[](long r) const { return {*this, r}; }
  ulong Rows() const { return rows_; }
  ulong Cols() const { return cols_; }
  // The scripts read no element a Resize keeps: the elements stay in their flat order.
  bool Resize(ulong rows, ulong cols, ulong = 0) {
    items_.resize(static_cast<size_t>(rows * cols));
    rows_ = rows;
    cols_ = cols;
    return true;
  }
  // `matrixf &m` / `const matrixf &m` parameter of an import: a pointer to the elements.
  T *dll_data() { return items_.data(); }
  const T *dll_data() const { return items_.data(); }

private:
  size_t checked(long r, long c) const {
    if (r < 0 || c < 0 || static_cast<ulong>(r) >= rows_ || static_cast<ulong>(c) >= cols_)
      throw critical_error("matrix index out of range: [" + std::to_string(r) + "][" +
                           std::to_string(c) + "] of " + std::to_string(rows_) + " x " +
                           std::to_string(cols_));
    return static_cast<size_t>(r) * cols_ + static_cast<size_t>(c);
  }
  std::vector<T> items_;
  ulong rows_ = 0, cols_ = 0;
};
using matrix = matrix_of<double>;
using matrixf = matrix_of<float>;

// ---- vector (double) and vectorf (float): Size() elements; v[i] outside it stops the program.
template <class T> class vector_of {
public:
  T &operator[](long i) { return items_[checked(i)]; }
  const T &operator[](long i) const { return items_[checked(i)]; }
  ulong Size() const { return items_.size(); }
  bool Resize(ulong size, ulong = 0) {
    items_.resize(static_cast<size_t>(size));
    return true;
  }
  // `vectorf &v` / `const vectorf &v` parameter of an import: a pointer to the elements.
  T *dll_data() { return items_.data(); }
  const T *dll_data() const { return items_.data(); }

private:
  size_t checked(long i) const {
    if (i < 0 || static_cast<size_t>(i) >= items_.size())
      throw critical_error("vector index out of range: " + std::to_string(i) + " of " +
                           std::to_string(items_.size()));
    return static_cast<size_t>(i);
  }
  std::vector<T> items_;
};
using vector = vector_of<double>;
using vectorf = vector_of<float>;

// ---- the terminal's own OpenCL constants, which include/mqlcl/OpenCL.mqh maps onto mqlcl's by
// name. MetaQuotes does not publish their values; these are the stand-in's, chosen unlike mqlcl's
// (and the memory flags unlike the Khronos bits) so that a constant passed through unmapped
// shows in the replay as a wrong device, flag or property.
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

// ---- #import ------------------------------------------------------------------------------------

// Where a module's library file is: mqlcl.dll -> build/bin/libmqlcl.so.
void set_library(const std::string &module, const std::string &path);
// Loads the module and finds every name, as the terminal does when a program starts.
void bind(const std::string &module, const std::vector<std::string> &names);
void *symbol(const std::string &module, const std::string &name);
template <class F> F import(const char *module, const char *name) {
  return reinterpret_cast<F>(symbol(module, name));
}

// ---- the journal: every Print line of the running script -------------------------------------

std::vector<std::string> &journal();

// ---- the scripts: each translated file registers one ------------------------------------------

using Inputs = std::map<std::string, std::string>; // input variable -> value, as text
using Runner = std::function<void(const Inputs &)>;
std::map<std::string, Runner> &scripts();
struct registration {
  registration(const std::string &name, Runner run) { scripts()[name] = std::move(run); }
};
void set_input(int &variable, const std::string &text);
void set_input(double &variable, const std::string &text);
void set_input(string &variable, const std::string &text);

// ---- built-ins (each as MQL5 Reference documents it) -------------------------------------------

std::string to_text(const string &s);
std::string to_text(const char *s);
std::string to_text(double d);
std::string to_text(float f);
std::string to_text(bool b);
template <class T> std::string to_text(T integer) {
  return std::to_string(integer);
}

void print_line(const std::string &line);
template <class... Args> void Print(const Args &...args) {
  std::string line;
  ((line += to_text(args)), ...);
  print_line(line);
}

string DoubleToString(double value, int digits = 8);
string IntegerToString(long number, int str_len = 0, ushort fill_symbol = ' ');
bool StringInit(string &s, int new_len = 0, ushort character = 0);
inline int StringLen(const string &s) {
  return s.length();
}
inline int StringBufferLen(const string &s) {
  return s.buffer_length();
}

void MathSrand(int seed);
int MathRand();
// For tests: MathRand() returns `value` (0 to 32767) from now on, until unfix_rand().
void fix_rand(int value);
void unfix_rand();
template <class A, class B> auto MathMax(A a, B b) {
  return a > b ? a : b;
}
template <class A, class B> auto MathMin(A a, B b) {
  return a < b ? a : b;
}
template <class A> A MathAbs(A a) {
  return a < 0 ? -a : a;
}

uint GetTickCount();
datetime TimeLocal();

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

} // namespace mql5rt
