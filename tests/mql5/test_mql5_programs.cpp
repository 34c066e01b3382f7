// Programs written as MetaTrader users write them (tests/mql5/programs), translated by
// mql5-translate and run against the built library on the OpenCL device: a bitonic sort, an
// FFT, a wavelet transform, a subclass of COpenCL that adds buffers at run time - each written
// for the standard library's <OpenCL/OpenCL.mqh>, only the include changed - a program written
// from COpenCL's documented interface alone, and one that mixes the class with mqlcl.dll's calls
// the documented way. Each checks its device results against its CPU results and prints the
// comparison; the tests read those lines, and check that no handle is left behind.
#define BOOST_TEST_MODULE mql5_programs
#include <boost/test/unit_test.hpp>

#include "replay_test.hpp"

#include <algorithm>

namespace {

using namespace replay_test;

BOOST_TEST_GLOBAL_FIXTURE(LoadTheLibrary);

// Whether the default device has fp64 (the programs' double parts skip without it).
bool device_has_fp64() {
  using Create = int (*)(int);
  using Free = void (*)(int);
  static const Create create = mql5rt::import <Create>(kModule, "CLContextCreate");
  static const Free free_context = mql5rt::import <Free>(kModule, "CLContextFree");
  int context = create(-1);                      // MQLCL_USE_ANY
  bool fp64 = bridge_integer(context, 111) == 1; // MQLCL_CL_DEVICE_DOUBLE_SUPPORT
  free_context(context);
  return fp64;
}

// The one line that starts with `start`.
std::string line(const std::vector<std::string> &log, const std::string &start) {
  std::string found;
  int count = 0;
  for (const std::string &l : log)
    if (l.rfind(start, 0) == 0) {
      found = l;
      ++count;
    }
  BOOST_TEST(count == 1, count << " lines start with \"" << start << "\"");
  return found;
}

// The numbers matched by the groups of `pattern` in `text`.
std::vector<std::string> fields(const std::string &text, const std::string &pattern) {
  std::smatch m;
  std::vector<std::string> out;
  if (std::regex_match(text, m, std::regex(pattern)))
    for (size_t i = 1; i < m.size(); ++i)
      out.push_back(m[i]);
  BOOST_TEST(!out.empty(), "\"" << text << "\" does not match " << pattern);
  return out;
}

void show(const std::vector<std::string> &log) {
  std::string all;
  for (const std::string &l : log)
    all += "  " + l + "\n";
  BOOST_TEST_MESSAGE("journal:\n" << all);
}

const std::string kFloat = R"((\d+\.\d+e[-+]\d+))";

} // namespace

BOOST_AUTO_TEST_CASE(every_program_was_translated) {
  for (const char *name :
       {"bitonic_sort", "fft", "wavelet", "dense_subclass", "class_and_dll_calls", "band_scan"})
    BOOST_TEST(mql5rt::scripts().count(name) == 1u, name);
}

// 2^12 values: 78 launches of the network, the device's order equal to ArraySort's.
BOOST_AUTO_TEST_CASE(the_bitonic_sort_orders_as_array_sort_does,
                     *boost::unit_test::precondition(needs_device())) {
  std::vector<std::string> log = run("bitonic_sort", {});
  show(log);
  const std::string pattern =
      R"(: 4096 values, 78 launches, \d+ us; ascending true, first difference from ArraySort -1)";
  BOOST_TEST(matches(line(log, "FLOAT: "), "FLOAT" + pattern), line(log, "FLOAT: "));
  if (device_has_fp64())
    BOOST_TEST(matches(line(log, "DOUBLE: "), "DOUBLE" + pattern), line(log, "DOUBLE: "));
  else
    BOOST_TEST(line(log, "double: ") == "double: the device has no double precision");
}

// 2^10 points in 10 stages against a direct DFT, in double; the tones' bins are the peaks. The
// chart cannot be shown here: the calls that need the terminal say so, and the program goes on.
BOOST_AUTO_TEST_CASE(the_fft_agrees_with_a_direct_dft_and_its_chart_is_reported_not_shown,
                     *boost::unit_test::precondition(needs_device())) {
  if (!device_has_fp64()) {
    BOOST_TEST_MESSAGE("the device has no fp64: the FFT is double");
    return;
  }
  std::vector<std::string> log = run("fft", {});
  show(log);
  auto f = fields(line(log, "fft: "), R"(fft: 1024 points, 10 stages, work-group (\d+), \d+ us; )"
                                      R"(max error )" +
                                          kFloat + R"( of (\d+\.\d+); peaks at (\d+) and (\d+))");
  BOOST_REQUIRE(f.size() == 5u);
  BOOST_TEST(std::stoi(f[0]) >= 1);
  BOOST_TEST(std::stod(f[1]) <= 1e-9 * std::stod(f[2]), "relative to the largest magnitude");
  BOOST_TEST(std::stod(f[2]) > 400.0); // the first tone's peak: n/2 = 512
  BOOST_TEST(f[3] == "37");
  BOOST_TEST(f[4] == "200");
  BOOST_TEST(line(log, "chart: not shown") == "chart: not shown, error 4014");
  BOOST_TEST(line(log, "chart: 1024") == "chart: 1024 points plotted");
  const auto &reported = mql5rt::not_performed_calls();
  for (const char *call : {"ObjectCreate", "ResourceCreate"}) {
    BOOST_TEST((std::find(reported.begin(), reported.end(), call) != reported.end()), call);
    BOOST_TEST(line(log, std::string(call) + ": ") ==
               std::string(call) + ": not performed by the replay (it needs the terminal: "
                                   "charts, objects and resources are not here)");
  }
}

// 6 levels of 2048 samples in float against the same in double; the transform keeps the energy.
BOOST_AUTO_TEST_CASE(the_wavelet_transform_agrees_with_the_cpu_and_keeps_the_energy,
                     *boost::unit_test::precondition(needs_device())) {
  std::vector<std::string> log = run("wavelet", {});
  show(log);
  auto f = fields(line(log, "wavelet: "),
                  R"(wavelet: 2048 samples, 6 levels, 32 approximations, 1 runs; max error )" +
                      kFloat + R"(; energy (\d+\.\d+) and (\d+\.\d+))");
  BOOST_REQUIRE(f.size() == 3u);
  BOOST_TEST(std::stod(f[0]) < 1e-4);
  BOOST_TEST(std::stod(f[1]) > 1000.0);
  BOOST_TEST(std::abs(std::stod(f[1]) - std::stod(f[2])) <= 1e-5 * std::stod(f[1]));
}

// A subclass of COpenCL adds four buffer slots at run time; the layer against x.MatMul(w) + b.
BOOST_AUTO_TEST_CASE(the_subclass_adds_buffers_and_its_layer_agrees_with_matrix_methods,
                     *boost::unit_test::precondition(needs_device())) {
  std::vector<std::string> log = run("dense_subclass", {});
  show(log);
  auto f = fields(line(log, "dense: "),
                  R"(dense: 32 x 16 by 16 x 8, 4 buffers added at run time, 1 built, )"
                  R"(transposed w 8 x 16; max error )" +
                      kFloat);
  BOOST_REQUIRE(f.size() == 1u);
  BOOST_TEST(std::stod(f[0]) < 1e-5);
}

// The class's methods and mqlcl.dll's calls on the class's handles say the same; the sum with
// a work-group sized from them agrees with the CPU's.
BOOST_AUTO_TEST_CASE(the_class_and_the_dll_agree_on_the_class_handles,
                     *boost::unit_test::precondition(needs_device())) {
  std::vector<std::string> log = run("class_and_dll_calls", {});
  show(log);
  BOOST_TEST(matches(line(log, "work-group limit: "),
                     R"(work-group limit: class [1-9]\d*, dll \d+, agree true)"));
  BOOST_TEST(
      matches(line(log, "local memory: "), R"(local memory: class [1-9]\d*, dll \d+, agree true)"));
  BOOST_TEST(line(log, "device name: ") == "device name: the same true");
  BOOST_TEST(line(log, "buffer size: ") == "buffer size: 256 bytes, as created true");
  auto f = fields(line(log, "sum: "), R"(sum: true, 100000 values in 64 groups of (\d+), )"
                                      R"(status read, relative error (\d+\.\d+e[-+]\d+))");
  BOOST_REQUIRE(f.size() == 2u);
  BOOST_TEST(std::stoi(f[0]) >= 1);
  BOOST_TEST(std::stod(f[1]) < 1e-5);
}

// Written from COpenCL's documented interface alone, in another hand: a pointer to the class,
// an enum input, a struct result. 24 series x (500 - 19) values against the CPU's loops.
BOOST_AUTO_TEST_CASE(a_program_written_from_the_documented_interface_runs_as_written,
                     *boost::unit_test::precondition(needs_device())) {
  if (!device_has_fp64()) {
    BOOST_TEST_MESSAGE("the device has no fp64: the bands are double");
    return;
  }
  for (const auto &[model, name] : {std::pair{"0", "random walk"}, std::pair{"1", "wave"}}) {
    std::vector<std::string> log = run("band_scan", {{"InpModel", model}});
    show(log);
    BOOST_TEST(line(log, "kernel bands ") == "kernel bands freed, name kept: true");
    auto f = fields(line(log, "bands: "),
                    std::string(R"(bands: 24 series of 500 bars, window 20, )") + name +
                        R"(, 11544 values compared, max difference (\d+\.\d{12}))");
    BOOST_REQUIRE(f.size() == 1u);
    BOOST_TEST(std::stod(f[0]) < 1e-9);
  }
}
