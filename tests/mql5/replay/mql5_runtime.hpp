// The part of MQL5 the translated programs need (mql5_translate.cpp writes them): its string,
// array, complex, vector and matrix types, #import the way MetaTrader does it - load the library
// by name, find each function by its undecorated name before the program starts, and call it
// with the parameter types of the MQL5 declaration (not of the C header) - and, in
// mql5_builtins.hpp, the constants and built-in functions.
//
// This is a stand-in for the terminal, not a second implementation of MQL5: what programs use is
// here, and a program that uses more fails to compile against it. What only the terminal can do
// (charts, objects, resources) is here too, and says at run time that it was not performed.
#pragma once

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

// MQL5's predefined macro: programs test it with #ifdef __MQL5__.
#define __MQL5__ 1

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

// The program's last error (GetLastError, _LastError), 0 when a program starts.
int &last_error();

template <class T> constexpr bool is_number_v = std::is_arithmetic_v<T> || std::is_enum_v<T>;

// ---- string: UTF-16 in a buffer that may be longer than the text (StringInit), whose end is the
// first NUL - MQL5's own representation, which is what lets a DLL write into a `string &`.
class string {
public:
  string() = default;
  string(const char *utf8); // NULL is the empty string
  string(const std::string &utf8) : string(utf8.c_str()) {}
  // (string)x of a number, as MQL5 writes it.
  template <class N, class = std::enable_if_t<is_number_v<N>>>
  explicit string(N number) : string(number_text(number)) {}

  std::u16string text() const;
  std::string utf8() const;
  int length() const { return static_cast<int>(text().size()); }
  int buffer_length() const { return static_cast<int>(buffer_.size()); }
  void init(int length, ushort fill) { buffer_.assign(static_cast<size_t>(length), fill); }
  void assign(std::u16string text) { buffer_ = std::move(text); }

  // `string &` parameter: the DLL writes into this buffer (and its terminator) in place.
  char16_t *dll_buffer() { return buffer_.data(); }
  // `string` parameter: the DLL gets a copy of the text.
  std::u16string dll_copy() const { return text(); }

  string &operator+=(const string &other);
  template <class N, class = std::enable_if_t<is_number_v<N>>> string &operator+=(N number) {
    return *this += string(number);
  }
  friend string operator+(const string &a, const string &b) { return string(a) += b; }
  template <class N, class = std::enable_if_t<is_number_v<N>>>
  friend string operator+(const string &a, N b) {
    return a + string(b);
  }
  template <class N, class = std::enable_if_t<is_number_v<N>>>
  friend string operator+(N a, const string &b) {
    return string(a) + b;
  }
  friend bool operator==(const string &a, const string &b) { return a.text() == b.text(); }
  friend bool operator!=(const string &a, const string &b) { return !(a == b); }
  friend bool operator<(const string &a, const string &b) { return a.text() < b.text(); }
  friend bool operator>(const string &a, const string &b) { return b < a; }

private:
  static std::string number_text(double number);
  static std::string number_text(float number) { return number_text(static_cast<double>(number)); }
  static std::string number_text(bool b) { return b ? "true" : "false"; }
  template <class N> static std::string number_text(N integer) {
    return std::to_string(static_cast<long long>(integer));
  }
  std::u16string buffer_;
};

// ---- complex: MQL5's struct of two doubles, and the element of matrixc and vectorc.
struct complex {
  double real = 0, imag = 0;
  friend complex operator+(complex a, complex b) { return {a.real + b.real, a.imag + b.imag}; }
  friend complex operator-(complex a, complex b) { return {a.real - b.real, a.imag - b.imag}; }
  friend complex operator*(complex a, complex b) {
    return {a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real};
  }
  friend bool operator==(complex a, complex b) { return a.real == b.real && a.imag == b.imag; }
};

// ---- array: dynamic (T a[]) or static (T a[N]); an index outside it stops the program. bool
// elements are held in a struct so that a[i] is a reference, as for any other type.
struct bool_cell {
  bool value = false;
  bool_cell() = default;
  bool_cell(bool b) : value(b) {}
  operator bool() const { return value; }
};
template <class T> using cell_t = std::conditional_t<std::is_same_v<T, bool>, bool_cell, T>;

template <class T> class array {
public:
  using cell = cell_t<T>;
  array() = default;
  static array fixed(long size, std::initializer_list<cell> values = {}) {
    array a;
    a.items_.assign(static_cast<size_t>(size), cell{});
    std::copy(values.begin(), values.end(), a.items_.begin());
    a.fixed_ = true;
    return a;
  }
  // NAME[N] = {a, b, c}: each value converted as MQL5 converts it.
  template <class... V> static array fixed(long size, const V &...values) {
    return fixed(size, {static_cast<cell>(static_cast<T>(values))...});
  }
  static array of(std::initializer_list<cell> values) {
    array a;
    a.items_.assign(values.begin(), values.end());
    return a;
  }
  template <class... V> static array of(const V &...values) {
    return of({static_cast<cell>(static_cast<T>(values))...});
  }
  // A series array (ArraySetAsSeries) is indexed from its end: a[0] is the last in memory.
  cell &operator[](long i) { return items_[physical(i)]; }
  const cell &operator[](long i) const { return items_[physical(i)]; }
  int size() const { return static_cast<int>(items_.size()); }
  bool is_fixed() const { return fixed_; }
  bool is_series() const { return series_; }
  void set_series(bool series) { series_ = series; }
  std::vector<cell> &items() { return items_; }
  const std::vector<cell> &items() const { return items_; }
  // `T &a[]` parameter: a pointer to the first element, and nothing about the length.
  cell *dll_data() { return items_.data(); }
  const cell *dll_data() const { return items_.data(); }

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
  std::vector<cell> items_;
  bool fixed_ = false;
  bool series_ = false;
};

// ---- vector<T> (vector: double, vectorf: float, vectorc: complex): Size() elements; v[i]
// outside it stops the program.
template <class T> class vector_of {
public:
  vector_of() = default;
  explicit vector_of(ulong size) : items_(static_cast<size_t>(size)) {}
  vector_of(std::initializer_list<T> values) : items_(values) {}

  T &operator[](long i) { return items_[checked(i)]; }
  const T &operator[](long i) const { return items_[checked(i)]; }
  ulong Size() const { return items_.size(); }
  bool Resize(ulong size, ulong = 0) {
    items_.resize(static_cast<size_t>(size));
    return true;
  }
  bool Init(ulong size) { return Resize(size); }
  bool Fill(T value) {
    std::fill(items_.begin(), items_.end(), value);
    return true;
  }
  static vector_of Zeros(ulong size) { return Full(size, T{}); }
  static vector_of Ones(ulong size) { return Full(size, T(1)); }
  static vector_of Full(ulong size, T value) {
    vector_of v(size);
    v.Fill(value);
    return v;
  }
  template <class U> bool Assign(const array<U> &values) {
    items_.assign(values.items().begin(), values.items().end());
    return true;
  }
  template <class U> bool Assign(const vector_of<U> &values) {
    items_.assign(values.items().begin(), values.items().end());
    return true;
  }
  T Sum() const {
    T sum{};
    for (const T &x : items_)
      sum = sum + x;
    return sum;
  }
  T Mean() const { return items_.empty() ? T{} : Sum() / static_cast<T>(items_.size()); }
  T Max() const { return items_.empty() ? T{} : *std::max_element(items_.begin(), items_.end()); }
  T Min() const { return items_.empty() ? T{} : *std::min_element(items_.begin(), items_.end()); }
  ulong ArgMax() const { return std::max_element(items_.begin(), items_.end()) - items_.begin(); }
  ulong ArgMin() const { return std::min_element(items_.begin(), items_.end()) - items_.begin(); }
  T Dot(const vector_of &other) const {
    T sum{};
    for (size_t i = 0; i < items_.size() && i < other.items_.size(); ++i)
      sum = sum + items_[i] * other.items_[i];
    return sum;
  }
  friend vector_of operator-(const vector_of &a, const vector_of &b) {
    return a.zip(b, [](T x, T y) { return x - y; });
  }
  friend vector_of operator+(const vector_of &a, const vector_of &b) {
    return a.zip(b, [](T x, T y) { return x + y; });
  }
  friend vector_of operator*(const vector_of &a, T k) {
    return a.zip(a, [k](T x, T) { return x * k; });
  }
  // `vectorf &v` / `const vectorf &v` parameter of an import: a pointer to the elements.
  T *dll_data() { return items_.data(); }
  const T *dll_data() const { return items_.data(); }
  std::vector<T> &items() { return items_; }
  const std::vector<T> &items() const { return items_; }

private:
  template <class F> vector_of zip(const vector_of &b, F f) const {
    if (b.items_.size() != items_.size())
      throw critical_error("vectors of " + std::to_string(items_.size()) + " and " +
                           std::to_string(b.items_.size()) + " elements");
    vector_of out(items_.size());
    for (size_t i = 0; i < items_.size(); ++i)
      out.items_[i] = f(items_[i], b.items_[i]);
    return out;
  }
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
using vectorc = vector_of<complex>;

// ---- matrix<T> (matrix: double, matrixf: float, matrixc: complex): rows x cols elements in
// row-major order, which is how MQL5 passes one to a DLL (a pointer to its first element);
// m[r][c] outside it stops the program.
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
  matrix_of() = default;
  matrix_of(ulong rows, ulong cols) { Resize(rows, cols); }
  matrix_of(std::initializer_list<std::initializer_list<T>> rows) {
    Resize(rows.size(), rows.size() == 0 ? 0 : rows.begin()->size());
    size_t r = 0;
    for (const auto &values : rows)
      std::copy(values.begin(), values.end(), items_.begin() + (r++) * cols_);
  }

  row<matrix_of, T> operator[](long r) { return {*this, r}; }
  row<const matrix_of, const T> operator[](long r) const { return {*this, r}; }
  ulong Rows() const { return rows_; }
  ulong Cols() const { return cols_; }
  // The elements stay in their flat order.
  bool Resize(ulong rows, ulong cols, ulong = 0) {
    items_.resize(static_cast<size_t>(rows * cols));
    rows_ = rows;
    cols_ = cols;
    return true;
  }
  bool Init(ulong rows, ulong cols) { return Resize(rows, cols); }
  bool Fill(T value) {
    std::fill(items_.begin(), items_.end(), value);
    return true;
  }
  static matrix_of Zeros(ulong rows, ulong cols) { return Full(rows, cols, T{}); }
  static matrix_of Ones(ulong rows, ulong cols) { return Full(rows, cols, T(1)); }
  static matrix_of Full(ulong rows, ulong cols, T value) {
    matrix_of m(rows, cols);
    m.Fill(value);
    return m;
  }
  static matrix_of Identity(ulong rows, ulong cols) {
    matrix_of m = Zeros(rows, cols);
    for (ulong i = 0; i < rows && i < cols; ++i)
      m.items_[i * cols + i] = T(1);
    return m;
  }
  // Row-major from an array or another matrix, each element converted.
  template <class U> bool Assign(const array<U> &values) {
    if (static_cast<ulong>(values.size()) != rows_ * cols_)
      Resize(1, static_cast<ulong>(values.size()));
    std::copy(values.items().begin(), values.items().end(), items_.begin());
    return true;
  }
  template <class U> bool Assign(const matrix_of<U> &m) {
    Resize(m.Rows(), m.Cols());
    std::copy(m.items().begin(), m.items().end(), items_.begin());
    return true;
  }
  matrix_of MatMul(const matrix_of &b) const {
    if (cols_ != b.rows_)
      throw critical_error("MatMul of " + shape() + " by " + b.shape());
    matrix_of c = Zeros(rows_, b.cols_);
    for (ulong i = 0; i < rows_; ++i)
      for (ulong k = 0; k < cols_; ++k)
        for (ulong j = 0; j < b.cols_; ++j)
          c.items_[i * b.cols_ + j] =
              c.items_[i * b.cols_ + j] + items_[i * cols_ + k] * b.items_[k * b.cols_ + j];
    return c;
  }
  vector_of<T> MatMul(const vector_of<T> &v) const {
    if (cols_ != v.Size())
      throw critical_error("MatMul of " + shape() + " by a vector of " + std::to_string(v.Size()));
    vector_of<T> out(rows_);
    for (ulong i = 0; i < rows_; ++i)
      for (ulong k = 0; k < cols_; ++k)
        out[static_cast<long>(i)] = out[static_cast<long>(i)] + items_[i * cols_ + k] * v[k];
    return out;
  }
  matrix_of Transpose() const {
    matrix_of t(cols_, rows_);
    for (ulong i = 0; i < rows_; ++i)
      for (ulong j = 0; j < cols_; ++j)
        t.items_[j * rows_ + i] = items_[i * cols_ + j];
    return t;
  }
  vector_of<T> Row(ulong r) const {
    vector_of<T> v(cols_);
    for (ulong j = 0; j < cols_; ++j)
      v[static_cast<long>(j)] = (*this)[static_cast<long>(r)][static_cast<long>(j)];
    return v;
  }
  vector_of<T> Col(ulong c) const {
    vector_of<T> v(rows_);
    for (ulong i = 0; i < rows_; ++i)
      v[static_cast<long>(i)] = (*this)[static_cast<long>(i)][static_cast<long>(c)];
    return v;
  }
  T Sum() const { return flat().Sum(); }
  T Mean() const { return flat().Mean(); }
  T Max() const { return flat().Max(); }
  T Min() const { return flat().Min(); }
  friend matrix_of operator-(const matrix_of &a, const matrix_of &b) {
    return a.zip(b, [](T x, T y) { return x - y; });
  }
  friend matrix_of operator+(const matrix_of &a, const matrix_of &b) {
    return a.zip(b, [](T x, T y) { return x + y; });
  }
  // `matrixf &m` / `const matrixf &m` parameter of an import: a pointer to the elements.
  T *dll_data() { return items_.data(); }
  const T *dll_data() const { return items_.data(); }
  const std::vector<T> &items() const { return items_; }

private:
  std::string shape() const { return std::to_string(rows_) + " x " + std::to_string(cols_); }
  vector_of<T> flat() const {
    vector_of<T> v;
    v.items() = items_;
    return v;
  }
  template <class F> matrix_of zip(const matrix_of &b, F f) const {
    if (b.rows_ != rows_ || b.cols_ != cols_)
      throw critical_error("matrices of " + shape() + " and " + b.shape());
    matrix_of out(rows_, cols_);
    for (size_t i = 0; i < items_.size(); ++i)
      out.items_[i] = f(items_[i], b.items_[i]);
    return out;
  }
  size_t checked(long r, long c) const {
    if (r < 0 || c < 0 || static_cast<ulong>(r) >= rows_ || static_cast<ulong>(c) >= cols_)
      throw critical_error("matrix index out of range: [" + std::to_string(r) + "][" +
                           std::to_string(c) + "] of " + shape());
    return static_cast<size_t>(r) * cols_ + static_cast<size_t>(c);
  }
  std::vector<T> items_;
  ulong rows_ = 0, cols_ = 0;
};
using matrix = matrix_of<double>;
using matrixf = matrix_of<float>;
using matrixc = matrix_of<complex>;

// ---- #import ------------------------------------------------------------------------------------

// Where a module's library file is: mqlcl.dll -> build/bin/libmqlcl.so.
void set_library(const std::string &module, const std::string &path);
// Loads the module and finds every name, as the terminal does when a program starts.
void bind(const std::string &module, const std::vector<std::string> &names);
void *symbol(const std::string &module, const std::string &name);
template <class F> F import(const char *module, const char *name) {
  return reinterpret_cast<F>(symbol(module, name));
}

// ---- the journal: every Print line of the running program ------------------------------------

std::vector<std::string> &journal();

// ---- the programs: each translated file registers one -----------------------------------------

using Inputs = std::map<std::string, std::string>; // input variable -> value, as text
using Runner = std::function<void(const Inputs &)>;
std::map<std::string, Runner> &scripts();
struct registration {
  registration(const std::string &name, Runner run) { scripts()[name] = std::move(run); }
};
// A program starts: no last error, and each call that is not performed is reported again.
void start_program();
void set_input(string &variable, const std::string &text);
void set_input(bool &variable, const std::string &text);
template <class T> void set_input(T &variable, const std::string &text) {
  if constexpr (std::is_floating_point_v<T>)
    variable = static_cast<T>(std::stod(text));
  else
    variable = static_cast<T>(std::stoll(text));
}

} // namespace mql5rt

#include "mql5_builtins.hpp"
