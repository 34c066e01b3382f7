// Boost.Test's framework and main(), header-only, in one translation unit of its own: linked
// into every test executable where no Boost.Test library exists (the MinGW cross build). The
// test sources define BOOST_TEST_MODULE and include <boost/test/unit_test.hpp> as usual.
#include <boost/test/included/unit_test.hpp>
