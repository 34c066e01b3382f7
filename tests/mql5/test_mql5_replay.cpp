// The scripts of mql5/Scripts/mqlcl, translated to C++ by mql5-translate and run against the
// built library on the OpenCL device, with ROWS1 = 48, COLSROWS = 64, COLS2 = 40: they must
// print the article's lines in the article's order, compute the right product, free every
// handle they made, and report a failure instead of crashing. tests/mql5/scripts adds the GEMM
// wrappers' own script: products of MQL5 matrices, and bad input.
#define BOOST_TEST_MODULE mql5_replay
#include <boost/test/unit_test.hpp>

#include "replay_test.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <regex>
#include <set>

namespace {

using namespace replay_test;

constexpr int kRows1 = 48, kColsRows = 64, kCols2 = 40; // CMakeLists.txt's replay_sizes

BOOST_TEST_GLOBAL_FIXTURE(LoadTheLibrary);

std::string device() {
  const char *ordinal = std::getenv("MQLCL_TEST_DEVICE");
  return ordinal != nullptr ? ordinal : "0";
}

const std::string kNumber = R"(-?\d+\.\d{3})";
const std::string kHeader = "=======================================";
const std::string kFooter = "________________________";

// The article's lines, the bridge's three, and ten random checks; returns how many of the
// checks found the OpenCL result equal to the sums.
int check_opencl_log(const std::vector<std::string> &log, const std::string &script,
                     bool expect_correct) {
  BOOST_REQUIRE_MESSAGE(log.size() == 20u, script << " printed " << log.size() << " lines");
  BOOST_TEST(log[0] == kHeader);
  BOOST_TEST(log[1] == "1st OCL martices mul:  device = " + device() + ";      ROWS1 = " +
                           std::to_string(kRows1) + "; COLSROWS = " + std::to_string(kColsRows) +
                           "; COLS2 = " + std::to_string(kCols2));
  BOOST_TEST(matches(log[2], "CPUTime = " + kNumber), log[2]);
  BOOST_TEST(log[3] == "read = " + std::to_string(kRows1 * kCols2) + " elements");
  BOOST_TEST(matches(log[4], "OpenCL total: time = " + kNumber + " sec\\."), log[4]);
  BOOST_TEST(matches(log[5], "device name = .+"), log[5]);
  BOOST_TEST(matches(log[6], R"(kernel time = \d+\.\d{6} sec\. \(profiling\))"), log[6]);
  BOOST_TEST(matches(log[7], R"(throughput = \d+\.\d{3} GFLOPS)"), log[7]);
  BOOST_TEST(matches(log[8], "CPUTime / GPUTotalTime = " + kNumber), log[8]);
  BOOST_TEST(log[19] == kFooter);
  std::regex check(R"(sum\( (\d+),(\d+) \) = (-?\d+\.\d{8});    thirdCPU\[ (\d+),(\d+) \] = )"
                   R"((-?\d+\.\d{8});    buf\[ (\d+),(\d+) \] = (-?\d+\.\d{8}))");
  int correct = 0;
  for (size_t i = 9; i < 19; ++i) {
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_match(log[i], m, check), log[i]);
    int row = std::stoi(m[1]), column = std::stoi(m[2]);
    BOOST_TEST((row >= 0 && row < kRows1 && column >= 0 && column < kCols2), log[i]);
    BOOST_TEST((m[4] == m[1] && m[5] == m[2] && m[7] == m[1] && m[8] == m[2]), log[i]);
    double sum = std::stod(m[3]), cpu = std::stod(m[6]), gpu = std::stod(m[9]);
    BOOST_TEST(std::abs(cpu - sum) < 1e-4, log[i]); // the CPU loop is the reference
    bool right = std::abs(gpu - sum) < 1e-4;
    correct += right ? 1 : 0;
    if (expect_correct)
      BOOST_TEST(right, script << ": " << log[i]);
  }
  return correct;
}

} // namespace

BOOST_AUTO_TEST_CASE(every_script_was_translated) {
  std::set<std::string> names;
  for (const auto &[name, runner] : mql5rt::scripts())
    names.insert(name);
  BOOST_TEST(names.size() == 16u);
  BOOST_TEST(names.count("copencl_class") == 1u);
  BOOST_TEST(names.count("mlp_copencl") == 1u);
  BOOST_TEST(names.count("matr_mul_1dim") == 1u);
  BOOST_TEST(names.count("mqlcl_device_info") == 1u);
  BOOST_TEST(names.count("matr_mul_gemm") == 1u);
  BOOST_TEST(names.count("mqlcl_gemm_wrappers") == 1u);
}

BOOST_AUTO_TEST_CASE(the_opencl_scripts_print_the_articles_lines_and_the_right_product,
                     *boost::unit_test::precondition(needs_device())) {
  for (const char *script :
       {"matr_mul_1dim", "matr_mul_1dim_coalesced", "matr_mul_sum_local", "matr_mul_row_calc",
        "matr_mul_row_in_private", "matr_mul_col_local_fixed", "matr_mul_vect", "matr_mul_vect_v2",
        "matr_mul_vect_v3", "matr_mul_gemm"})
    check_opencl_log(run(script, {{"_device", device()}}), script, true);
}

BOOST_AUTO_TEST_CASE(the_random_generators_stay_inside_the_arrays_at_their_extremes,
                     *boost::unit_test::precondition(needs_device())) {
  // MathRand() returns 0 to 32767 inclusive; at 32767 the article's genRnd returned max itself,
  // an index one past the end, which stops an MQL5 script ("array out of range"). Found by a
  // full-size replay of matr_mul_vect_v2.
  for (int value : {32767, 0}) {
    mql5rt::fix_rand(value);
    BOOST_TEST_MESSAGE("MathRand() = " << value);
    check_opencl_log(run("matr_mul_row_calc", {{"_device", device()}}), "matr_mul_row_calc", true);
    mql5rt::unfix_rand();
  }
}

BOOST_AUTO_TEST_CASE(the_racy_col_local_runs_and_its_result_is_reported,
                     *boost::unit_test::precondition(needs_device())) {
  // Listing 7 as printed lacks the barrier after the sum loop: whether its result is right
  // depends on how the device schedules a work-group. Only the format is asserted.
  int correct = check_opencl_log(run("matr_mul_col_local", {{"_device", device()}}),
                                 "matr_mul_col_local", false);
  BOOST_TEST_MESSAGE("matr_mul_col_local (the race as printed): " << correct
                                                                  << " of 10 checks right");
}

BOOST_AUTO_TEST_CASE(the_host_only_script_prints_its_three_lines) {
  std::vector<std::string> log = run("matr_mul_2dim", {});
  BOOST_REQUIRE(log.size() == 3u);
  BOOST_TEST(log[0] == kHeader);
  BOOST_TEST(log[1] == "ROWS1 = 48; COLSROWS = 64; COLS2 = 40");
  BOOST_TEST(matches(log[2], "CPU: time = " + kNumber + " s\\."), log[2]);
}

BOOST_AUTO_TEST_CASE(the_device_info_script_reads_what_gpu_caps_viewer_showed,
                     *boost::unit_test::precondition(needs_device())) {
  std::vector<std::string> log = run("mqlcl_device_info", {{"_device", device()}});
  BOOST_REQUIRE(log.size() > 10u);
  BOOST_TEST(matches(log[0], R"(mqlcl \d+\.\d+\.\d+: \d+ OpenCL device\(s\))"), log[0]);
  BOOST_TEST(matches(log[1], R"(OpenCL device #0: [\s\S]+)"), log[1]);
  std::map<std::string, std::string> values;
  for (const std::string &line : log) {
    size_t colon = line.find(": ");
    if (colon != std::string::npos)
      values[line.substr(0, colon)] = line.substr(colon + 2);
  }
  BOOST_TEST(!values["CL_DEVICE_NAME"].empty());
  BOOST_TEST(matches(values["CL_DEVICE_LOCAL_MEM_TYPE (1 = Local, 2 = Global)"], "[12]"));
  BOOST_TEST(matches(values["CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT"], R"(\d+)"));
  // The raw bytes of CL_DEVICE_MAX_WORK_ITEM_SIZES, decoded by the script, against the bridge's
  // own three properties.
  BOOST_TEST(log.back() ==
             "CLGetDeviceInfo(0x1005) = 24 bytes: " + values["CL_DEVICE_MAX_WORK_ITEM_SIZES[0]"] +
                 ", " + values["CL_DEVICE_MAX_WORK_ITEM_SIZES[1]"] + ", " +
                 values["CL_DEVICE_MAX_WORK_ITEM_SIZES[2]"]);
}

BOOST_AUTO_TEST_CASE(a_device_that_does_not_exist_is_reported_not_crashed,
                     *boost::unit_test::precondition(needs_device())) {
  std::vector<std::string> log = run("matr_mul_1dim", {{"_device", "99"}});
  BOOST_REQUIRE(log.size() >= 4u);
  BOOST_TEST(log[1].find("device = 99;") != std::string::npos);
  BOOST_TEST(matches(log[3], R"(CLContextCreate\(99\) failed: error 5\d{3}: .+)"), log[3]);
  for (const std::string &line : log)
    BOOST_TEST(line.rfind("read = ", 0) != 0u, "after a failed context: " << line);
}

BOOST_AUTO_TEST_CASE(the_gemm_script_reports_a_missing_device_not_crashes,
                     *boost::unit_test::precondition(needs_device())) {
  std::vector<std::string> log = run("matr_mul_gemm", {{"_device", "99"}});
  BOOST_REQUIRE(log.size() >= 4u);
  BOOST_TEST(matches(log[3], R"(CLContextCreate\(99\) failed: error 5\d{3}: .+)"), log[3]);
}

// mqlcl.mqh's wrappers from MQL5: mqlclMatMul on matrixf and matrix, buffers kept and reused, and
// each bad input's result, code and message (docs/mql5.md lists them).
BOOST_AUTO_TEST_CASE(the_gemm_wrappers_multiply_mql5_matrices_and_refuse_bad_input,
                     *boost::unit_test::precondition(needs_device())) {
  std::vector<std::string> log = run("mqlcl_gemm_wrappers", {{"_device", device()}});
  auto line = [&](const std::string &start) -> std::string {
    for (const std::string &l : log)
      if (l.rfind(start, 0) == 0)
        return l;
    BOOST_ERROR("no line starts with \"" << start << "\"");
    return "";
  };
  auto max_error = [](const std::string &l) {
    size_t at = l.find("max error ");
    return at == std::string::npos ? -1.0 : std::stod(l.substr(at + 10));
  };
  // float products against a double loop: 19 and 65 terms of values up to 1 in size.
  std::string product = line("matrixf: ");
  BOOST_TEST(product.find("matrixf: true, c 37 x 23, max error ") == 0u, product);
  BOOST_TEST((max_error(product) >= 0 && max_error(product) < 1e-5), product);
  BOOST_TEST(line("kept: ") == "kept: true, objects 4, the same C buffer true");
  product = line("matrixf larger: ");
  BOOST_TEST(product.find("matrixf larger: true, c 64 x 66, max error ") == 0u, product);
  BOOST_TEST((max_error(product) >= 0 && max_error(product) < 1e-5), product);
  BOOST_TEST(line("larger: ") == "larger: objects 4, a new C buffer true");
  BOOST_TEST(line("freed: ") == "freed: objects 1, -1 -1 -1");
  // double, where the device has fp64.
  if (line("fp64 ") == "fp64 1") {
    product = line("matrix: ");
    BOOST_TEST(product.find("matrix: true, c 7 x 1, max error ") == 0u, product);
    BOOST_TEST((max_error(product) >= 0 && max_error(product) < 1e-12), product);
  } else {
    BOOST_TEST(matches(line("matrix: "), "matrix: error 5100: .+"));
  }
  // Shapes that do not multiply: refused by the wrapper before any other DLL call, with its
  // code and message as the DLL's last error, c unchanged.
  BOOST_TEST(line("mqlclMatMul: a is ") ==
             "mqlclMatMul: a is 3 x 4 and b is 5 x 2; a's columns must equal b's rows");
  BOOST_TEST(matches(line("mismatched shapes: error "),
                     "mismatched shapes: error 4003: mqlclMatMul: a is 3 x 4 and b is 5 x 2; .+"));
  BOOST_TEST(line("mismatched shapes: c ") == "mismatched shapes: c 1 x 1, objects 0");
  BOOST_TEST(matches(line("a freed buffer in buffers[]: "),
                     R"(a freed buffer in buffers\[\]: error 5102: .+)"));
  BOOST_TEST(line("mqlclMatMul: buffers[] has ") ==
             "mqlclMatMul: buffers[] has 2 elements; it must hold 3 handles (MQLCL_INVALID_HANDLE "
             "for none)");
  BOOST_TEST(
      matches(line("buffers[] of 2: "),
              R"(buffers\[\] of 2: error 4003: mqlclMatMul: buffers\[\] has 2 elements; .+)"));
  BOOST_TEST(line("mqlclGemm 3 x 2 x 4: ") == "mqlclGemm 3 x 2 x 4: true");
  BOOST_TEST(matches(line("mqlclGemm with k past the buffers: "),
                     "mqlclGemm with k past the buffers: error 5110: CLGemm: .+"));
  BOOST_TEST(matches(line("mqlclGemm on a freed buffer: "),
                     "mqlclGemm on a freed buffer: error 5102: .+"));
  BOOST_TEST(line("bad input: ") == "bad input: objects 0");
}

namespace {

// mlp_copencl.mq5's training in double on the CPU: the same data and initial weights (the same
// MathRand sequence, rounded to float as the script stores them), the same full-batch steps.
// Returns the loss of each step's forward pass; weights and predictions as they end.
struct MlpReference {
  static constexpr int kSamples = 64, kInputs = 4, kHidden = 16; // the script's #defines
  std::vector<double> losses;
  double w1_00 = 0, y_0 = 0, t_0 = 0;

  MlpReference(int steps, double rate, int seed) {
    auto uniform = [] { return mql5rt::MathRand() / 32768.0 * 2.0 - 1.0; };
    mql5rt::MathSrand(seed);
    std::vector<double> x(kSamples * kInputs), t(kSamples), w1(kInputs * kHidden), b1(kHidden, 0),
        w2(kHidden), h(kSamples * kHidden), dy(kSamples), dh(kSamples * kHidden), y(kSamples);
    double b2 = 0;
    for (int n = 0; n < kSamples; ++n) {
      float f[kInputs];
      for (int d = 0; d < kInputs; ++d)
        x[n * kInputs + d] = f[d] = static_cast<float>(uniform());
      t[n] = static_cast<float>(f[0] * f[1] + 0.5 * f[2] - 0.25 * f[3]);
    }
    for (double &w : w1)
      w = static_cast<float>(0.5 * uniform());
    for (double &w : w2)
      w = static_cast<float>(0.5 * uniform());
    for (int step = 0; step < steps; ++step) {
      double loss = 0;
      for (int n = 0; n < kSamples; ++n) {
        double s2 = b2;
        for (int j = 0; j < kHidden; ++j) {
          double s = b1[j];
          for (int d = 0; d < kInputs; ++d)
            s += x[n * kInputs + d] * w1[d * kHidden + j];
          h[n * kHidden + j] = std::tanh(s);
          s2 += h[n * kHidden + j] * w2[j];
        }
        double e = s2 - t[n];
        y[n] = s2;
        loss += e * e;
        dy[n] = 2 * e / kSamples;
        for (int j = 0; j < kHidden; ++j) {
          double a = h[n * kHidden + j];
          dh[n * kHidden + j] = dy[n] * w2[j] * (1 - a * a);
        }
      }
      losses.push_back(loss / kSamples);
      for (int j = 0; j <= kHidden; ++j) {
        double g = 0;
        for (int n = 0; n < kSamples; ++n)
          g += dy[n] * (j < kHidden ? h[n * kHidden + j] : 1.0);
        (j < kHidden ? w2[j] : b2) -= rate * g;
      }
      for (int d = 0; d <= kInputs; ++d)
        for (int j = 0; j < kHidden; ++j) {
          double g = 0;
          for (int n = 0; n < kSamples; ++n)
            g += dh[n * kHidden + j] * (d < kInputs ? x[n * kInputs + d] : 1.0);
          (d < kInputs ? w1[d * kHidden + j] : b1[j]) -= rate * g;
        }
    }
    w1_00 = w1[0];
    y_0 = y[0];
    t_0 = t[0];
  }
};

} // namespace

// The MLP through the COpenCL class (mql5/Include/mqlcl/OpenCL.mqh): its loss curve against the
// same steps in double on the CPU, and the weights and predictions it reads back as a matrix and
// a vector.
BOOST_AUTO_TEST_CASE(the_mlp_through_the_copencl_class_follows_a_double_computation,
                     *boost::unit_test::precondition(needs_device())) {
  const int steps = 300, every = 50, seed = 7;
  const double rate = 0.2;
  std::vector<std::string> log = run("mlp_copencl", {{"Steps", std::to_string(steps)},
                                                     {"LearningRate", "0.2"},
                                                     {"Seed", std::to_string(seed)},
                                                     {"ReportEvery", std::to_string(every)}});
  MlpReference reference(steps, rate, seed);
  std::vector<int> reported;
  for (int step = 0; step < steps; step += every)
    reported.push_back(step);
  reported.push_back(steps - 1);
  BOOST_REQUIRE_MESSAGE(log.size() == reported.size() + 1, "printed " << log.size() << " lines");
  std::regex loss_line(R"(step (\d+): loss = (\d+\.\d{8}))");
  for (size_t i = 0; i < reported.size(); ++i) {
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_match(log[i], m, loss_line), log[i]);
    BOOST_TEST(std::stoi(m[1]) == reported[i]);
    double expected = reference.losses[static_cast<size_t>(reported[i])];
    BOOST_TEST(std::abs(std::stod(m[2]) - expected) <= 1e-3 * expected + 1e-7,
               log[i] << " against " << expected << " in double");
  }
  // It learns: the last loss is a small part of the first.
  BOOST_TEST(reference.losses.back() < 0.25 * reference.losses.front());
  std::regex last(
      R"(w1\[0\]\[0\] = (-?\d+\.\d{6}); y\[0\] = (-?\d+\.\d{6}); t\[0\] = (-?\d+\.\d{6}))");
  std::smatch m;
  BOOST_TEST_REQUIRE(std::regex_match(log.back(), m, last), log.back());
  BOOST_TEST(std::abs(std::stod(m[1]) - reference.w1_00) < 1e-3, log.back());
  BOOST_TEST(std::abs(std::stod(m[2]) - reference.y_0) < 1e-3, log.back());
  BOOST_TEST(std::abs(std::stod(m[3]) - reference.t_0) < 1e-6, log.back());
}

// The COpenCL class beyond the MLP (tests/mql5/scripts/copencl_class.mq5): a value of each scalar
// type by value, matrices and vectors (float, double, complex), a non-blocking read, the class's
// refusals (their own codes) and the DLL's codes, the original's freeing after a failed
// KernelCreate, the GEMM in the element type its slots hold and its refusal of another, the
// original's edges, and an owner.
BOOST_AUTO_TEST_CASE(the_copencl_class_passes_every_scalar_and_refuses_bad_input,
                     *boost::unit_test::precondition(needs_device())) {
  std::vector<std::string> log = run("copencl_class", {});
  const std::vector<std::string> expected = {
      // bool, char, uchar, short, ushort, int, uint, long, ulong's high half, float x 1000,
      // datetime, color, an enum
      "scalars: 1 -5 200 -30000 60000 -123456 4000000000 -9000000000 305419896 1500 1700000000 "
      "16744512 2",
      "mqlclSetKernelArg: true, 0 777 -250", "matrices: true, 3 x 2, 12.0, 0.25 -8.00",
      "poll before a start: -1, code 65538", "non-blocking: true, status 0, true, 1.0 12.0",
      // series[1], series[2] written; read back into series[2], series[3]
      "series: true, 2.0 3.0, 1.0 2.0 2.0 3.0", "buffer index 5: false, code 4003",
      "kernel index -1: false, code 4003",
      "a kernel handle asked for CL_BUFFER_SIZE: -1, code 5102",
      "a 10 x 10 matrixf from a 104-byte buffer: false, code 5110",
      "rows without cols: false, code 4003", "20 longs from a 104-byte buffer: false, code 5110",
      "elements 18 to 22 of an array of 20: false, code 5052", "flags 0x1000: false, code 4003",
      "an argument of the wrong kind: false, code 5108",
      "a kernel that is not in the program: false, code 5107",
      "after a failed KernelCreate: context -1, program -1",
      // 3 x 4 by 4 x 2 from float matrices: the slots' type, no element_type stated
      "gemm of float slots: true, max error 0.000000", "gemm of an int slot: false, code 4003",
      "a read of 0 elements: false, code 5053", "a write of 0 elements: false, code 5053",
      "the name after KernelFree: scalars", "matrixc: true, 3.0 -3.0",
      "GetDeviceInfo(0x1005): 24 bytes, the second size true, compute units true",
      "a second ContextCreate: true, buffer slot 2 kept true, kernel 0 -1"};
  // The lines that depend on the device's fp64, and the owner's.
  const std::vector<std::string> fp64 = {"gemm of double slots as float: false, code 4003",
                                         "gemm of double slots: true, max error 0.000000000000",
                                         "gemm of a float and a double slot: false, code 4003",
                                         "double: true, 2.500"};
  const std::vector<std::string> no_fp64 = {"gemm of double slots: not supported",
                                            "double: not supported"};
  const std::vector<std::string> owner = {"another owner's buffer: false, code 65537",
                                          "owner: made true, freed 4"};
  std::vector<std::string> lines;
  auto listed = [](const std::vector<std::string> &list, const std::string &l) {
    return std::find(list.begin(), list.end(), l) != list.end();
  };
  for (const std::string &line : log) // the class's own messages go to the journal too
    if (listed(expected, line) || listed(fp64, line) || listed(no_fp64, line) ||
        listed(owner, line) || line.rfind("gemm ", 0) == 0 || line.rfind("double: ", 0) == 0)
      lines.push_back(line);
  BOOST_TEST_MESSAGE("journal:\n"
                     << [&] {
                          std::string all;
                          for (const std::string &l : log)
                            all += "  " + l + "\n";
                          return all;
                        }());
  bool has_fp64 = listed(lines, "double: true, 2.500");
  std::vector<std::string> want = expected;
  // In the order the script prints them: the GEMM's double lines after its float one.
  want.insert(want.begin() + 18, has_fp64 ? fp64.begin() : no_fp64.begin(),
              has_fp64 ? fp64.end() - 1 : no_fp64.end() - 1);
  want.push_back(has_fp64 ? fp64.back() : no_fp64.back());
  want.insert(want.end(), owner.begin(), owner.end());
  BOOST_REQUIRE_MESSAGE(lines.size() == want.size(), "found " << lines.size() << " lines");
  for (size_t i = 0; i < want.size(); ++i)
    BOOST_TEST(lines[i] == want[i]);
}

// The runtime's built-ins that the programs above do not all reach, against what the MQL5
// Reference says of them.
BOOST_AUTO_TEST_CASE(the_runtime_built_ins_do_what_the_reference_says) {
  using namespace mql5rt;
  array<double> dynamic, source = array<double>::of(1, 2, 3, 4);
  BOOST_TEST(ArrayCopy(dynamic, source, 2, 1) == 3); // a dynamic array grows to take them
  BOOST_TEST(ArraySize(dynamic) == 5);
  BOOST_TEST((dynamic[2] == 2 && dynamic[4] == 4));
  array<int> fixed = array<int>::fixed(3, -1, -1, -1);
  BOOST_TEST(ArrayCopy(fixed, source, 1) == 2); // a static one keeps its size
  BOOST_TEST((fixed[0] == -1 && fixed[1] == 1 && fixed[2] == 2));
  ArrayFill(fixed, 0, 2, 7);
  BOOST_TEST((fixed[0] == 7 && fixed[1] == 7 && fixed[2] == 2));
  array<uint> narrowed = array<uint>::of(5, -1); // as MQL5 converts, not as C++ narrows
  BOOST_TEST(narrowed[1] == 4294967295u);
  array<double> series = array<double>::of(3, 1, 2);
  ArraySetAsSeries(series, true);
  ArraySort(series); // ascending as the program indexes it
  BOOST_TEST((series[0] == 1 && series[2] == 3));
  BOOST_TEST(ArrayMaximum(source) == 3);
  BOOST_TEST(ArrayMinimum(source, 1, 2) == 1);
  BOOST_TEST(to_text(StringFormat("%-4s|%5.2f|%03d|%x|%I64u|%%", "ab", 3.14159, 7, 255,
                                  static_cast<ulong>(1) << 40)) ==
             "ab  | 3.14|007|ff|1099511627776|%");
  string word("mql5 Test");
  StringToUpper(word);
  BOOST_TEST(to_text(word) == "MQL5 TEST");
  array<string> parts;
  BOOST_TEST(StringSplit(string("a,b,,c"), ',', parts) == 4);
  BOOST_TEST(to_text(parts[3]) == "c");
  string replaced("a-b-c");
  BOOST_TEST(StringReplace(replaced, string("-"), string("--")) == 2);
  BOOST_TEST(to_text(replaced) == "a--b--c");
  BOOST_TEST(to_text(string("n=") + 4 + string(", x=") + 0.5) == "n=4, x=0.5");
  BOOST_TEST(MathRound(2.5) == 3.0);
  BOOST_TEST(std::abs(MathLog(MathExp(1.5)) - 1.5) < 1e-15);
  BOOST_TEST(MathPow(2, 10) == 1024.0);
  BOOST_TEST(NormalizeDouble(1.23456, 2) == 1.23);
  matrix a = {{1, 2}, {3, 4}}, identity = matrix::Identity(2, 2);
  BOOST_TEST(a.MatMul(identity).Transpose()[0][1] == 3.0);
  BOOST_TEST(matrix::Zeros(2, 3).Cols() == 3u);
  vector v = {1, 2, 3};
  BOOST_TEST(v.Dot(v) == 14.0);
  BOOST_TEST(a.Row(1).Sum() == 7.0);
  ResetLastError();
  ChartRedraw(); // what needs the terminal fails, and says so once
  ChartRedraw();
  BOOST_TEST(GetLastError() == 4014);
  BOOST_TEST(std::count(not_performed_calls().begin(), not_performed_calls().end(),
                        std::string("ChartRedraw")) == 1);
}
