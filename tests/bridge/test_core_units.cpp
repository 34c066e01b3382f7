// Units of the bridge core that need no OpenCL device: the handle table, UTF-16 conversion and
// error names. Linked against the core's objects, not the shared library.
#define BOOST_TEST_MODULE bridge_core_units
#include "errors.hpp"
#include "handle_table.hpp"
#include "utf16.hpp"

#include <boost/test/unit_test.hpp>

#include <set>

using namespace mqlcl;

BOOST_AUTO_TEST_CASE(handles_encode_type_generation_and_slot) {
  HandleTable<int> table(MQLCL_OPENCL_BUFFER);
  int32_t handle = table.insert(std::make_shared<int>(7));
  BOOST_TEST(handle >= (1 << 28));
  BOOST_TEST(HandleBits::type_of(handle) == MQLCL_OPENCL_BUFFER);
  BOOST_TEST(HandleBits::generation_of(handle) == 1u);
  BOOST_TEST(*table.find(handle) == 7);
  BOOST_TEST(!table.find(handle + 1));
  BOOST_TEST(!HandleTable<int>(MQLCL_OPENCL_KERNEL).find(handle)); // wrong type
  BOOST_TEST(table.remove(handle) != nullptr);
  BOOST_TEST(table.remove(handle) == nullptr); // double free
  int32_t reused = table.insert(std::make_shared<int>(8));
  BOOST_TEST(HandleBits::slot_of(reused) == HandleBits::slot_of(handle));
  BOOST_TEST(reused != handle);
  BOOST_TEST(!table.find(handle)); // the stale handle does not alias the new object
}

BOOST_AUTO_TEST_CASE(exhausted_slots_retire_instead_of_wrapping) {
  HandleTable<int> table(MQLCL_OPENCL_CONTEXT);
  std::set<int32_t> seen;
  for (uint32_t i = 0; i < HandleBits::kGenerationMask; ++i) {
    int32_t handle = table.insert(std::make_shared<int>(0));
    BOOST_TEST_REQUIRE(seen.insert(handle).second);
    BOOST_TEST_REQUIRE(HandleBits::slot_of(handle) == 0u);
    table.remove(handle);
  }
  // Slot 0 has used every generation: the next object gets a fresh slot.
  int32_t next = table.insert(std::make_shared<int>(0));
  BOOST_TEST(HandleBits::slot_of(next) == 1u);
  BOOST_TEST(seen.count(next) == 0u);
  BOOST_TEST(table.slot_count() == 2u);
}

BOOST_AUTO_TEST_CASE(too_many_live_objects_fail_with_5113) {
  HandleTable<int> table(MQLCL_OPENCL_PROGRAM);
  auto shared = std::make_shared<int>(0);
  for (uint32_t i = 0; i < HandleBits::kMaxSlots; ++i)
    table.insert(shared);
  try {
    table.insert(shared);
    BOOST_FAIL("no failure");
  } catch (const Failure &failure) {
    BOOST_TEST(failure.code() == MQLCL_ERR_OPENCL_TOO_MANY_OBJECTS);
  }
  BOOST_TEST(table.live_count() == HandleBits::kMaxSlots);
}

BOOST_AUTO_TEST_CASE(utf16_round_trips_and_repairs) {
  const char16_t text[] = u"abc Ж € 𝔼";
  std::string utf8 = utf16_to_utf8(text);
  BOOST_TEST(utf8 == "abc \xD0\x96 \xE2\x82\xAC \xF0\x9D\x94\xBC");
  char16_t out[32];
  BOOST_TEST(write_utf16(utf8, out, 32));
  BOOST_CHECK(std::u16string(out) == std::u16string(text));
  // Unpaired surrogates become U+FFFD.
  const char16_t broken[] = {u'a', 0xD800, u'b', 0xDC00, 0};
  BOOST_TEST(utf16_to_utf8(broken) == "a\xEF\xBF\xBD"
                                      "b\xEF\xBF\xBD");
  // A surrogate pair is never split by truncation; the result is always terminated.
  // "abc Ж € " is 8 units; with room for 9 the pair for 𝔼 does not fit whole, so it is left out.
  char16_t tight[10];
  BOOST_TEST(!write_utf16(utf8, tight, 10));
  BOOST_CHECK(std::u16string(tight) == u"abc Ж € ");
  BOOST_TEST(!write_utf16("x", tight, 0));
  BOOST_TEST(write_utf16("", tight, 1));
  BOOST_TEST(tight[0] == 0);
  // Malformed UTF-8 from a driver is repaired, not trusted.
  BOOST_TEST(write_utf16("\xC0\xAF\xFF", out, 32));
  BOOST_CHECK(std::u16string(out) == u"\uFFFD\uFFFD\uFFFD");
}

BOOST_AUTO_TEST_CASE(error_names) {
  BOOST_TEST(cl_error_name(CL_INVALID_KERNEL_ARGS) == "CL_INVALID_KERNEL_ARGS");
  BOOST_TEST(cl_error_name(-9999) == "unknown OpenCL error -9999");
}
