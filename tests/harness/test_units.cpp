// The harness's parts that need no device, one suite a file (test_units_*.cpp): the catalogue and
// its checks, the host side (the article's random generator and CPU loops, the reference,
// verification), the command line, the output (JSON, CSV, SVG) and the kernel files' includes.
#define BOOST_TEST_MODULE harness_units
#include <boost/test/unit_test.hpp>
