// Staged transfers whose lanes cannot get threads: pthread_create refused (EAGAIN, as in a process
// out of threads or memory) by tests/support/thread_start_failures.c, linked ahead of the C
// library. The lane pool is process-wide, so this runs in a process of its own, whose pool has
// never started a thread; ctest gives it MQLCL_STAGING=on, 64 KiB chunks and 3 lanes, so that
// PoCL stages and a transfer of a few hundred KiB goes round the ring of slots more than once.
#define BOOST_TEST_MODULE bridge_staging_no_threads
#include "objects.hpp"
#include "opencl_device.hpp"
#include "random_bytes.hpp"
#include "staging_mode.hpp"
#include "thread_start_failures.h"

#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace mqlcl_test;
using mqlcl::Staging;

namespace {

const size_t kChunk = Staging::chunk_bytes();
const size_t kRing = Staging::kSlotsPerLane * Staging::lane_count();
// Every slot refilled, and an odd tail.
const size_t kBytes = (2 * kRing + 3) * kChunk + 4097;

// How many lanes the last transfer's record says ran on the calling thread (0 when it names none).
size_t lanes_on_caller(const std::string &record) {
  size_t lanes = 0;
  for (size_t from = record.find("; "); from != std::string::npos;
       from = record.find("; ", from + 2)) {
    unsigned count = 0;
    char word[8] = {};
    if (std::sscanf(record.c_str() + from, "; %u %7s on the calling thread", &count, word) == 2 &&
        (std::strcmp(word, "lane") == 0 || std::strcmp(word, "lanes") == 0))
      lanes = count;
  }
  return lanes;
}

// A write and a read of kBytes at odd offsets on a context made before any start was refused,
// each checked byte for byte; returns the records of both.
std::vector<std::string> round_trip(int32_t context, uint32_t seed) {
  Buffer buffer = make_buffer(context, static_cast<uint32_t>(kBytes + 8));
  const std::vector<uint8_t> data = random_bytes(kBytes, seed);
  std::vector<uint8_t> back(kBytes + 3, 0xA5);
  std::vector<std::string> records;
  BOOST_TEST_REQUIRE(CLBufferWrite(buffer, data.data(), 5, 0, uint32_t(kBytes), 1) == kBytes,
                     last_error_text());
  records.push_back(info_string(context, MQLCL_CL_LAST_TRANSFER));
  BOOST_TEST_REQUIRE(CLBufferRead(buffer, back.data(), 5, 3, uint32_t(kBytes), 1) == kBytes,
                     last_error_text());
  records.push_back(info_string(context, MQLCL_CL_LAST_TRANSFER));
  BOOST_TEST((back[0] == 0xA5 && back[1] == 0xA5 && back[2] == 0xA5)); // before the target range
  BOOST_TEST(std::memcmp(back.data() + 3, data.data(), kBytes) == 0);
  for (const std::string &record : records)
    BOOST_TEST_MESSAGE(record);
  return records;
}

} // namespace

BOOST_AUTO_TEST_SUITE(staging_no_threads, *boost::unit_test::precondition(needs_device()) *
                                              boost::unit_test::precondition(staging_is_forced()))

// Neither the pool nor the call gets a thread: every lane runs on the calling thread, lane 0
// first, and the transfer still completes (with a fixed share of every chunk per lane, lane 0
// waited for a chunk that a lane yet to run had to finish, for ever).
BOOST_AUTO_TEST_CASE(a_transfer_completes_when_no_lane_thread_can_start) {
  BOOST_TEST_REQUIRE(Staging::lane_count() > 1);
  BOOST_TEST_REQUIRE(kBytes > 2 * kRing * kChunk);
  Context context = make_context(); // the device's own threads start here
  const unsigned refused_before = mqlcl_test_thread_starts_refused();
  mqlcl_test_refuse_thread_starts(MQLCL_TEST_THREADS_REFUSED);
  const std::vector<std::string> records = round_trip(context, 1);
  mqlcl_test_refuse_thread_starts(MQLCL_TEST_THREADS_STARTED);
  BOOST_TEST(mqlcl_test_thread_starts_refused() > refused_before);
  for (const std::string &record : records) {
    BOOST_TEST(record.find("staged (lanes " + std::to_string(Staging::lane_count())) !=
                   std::string::npos,
               record);
    BOOST_TEST(record.find("; on threads started for the call") != std::string::npos, record);
    BOOST_TEST(lanes_on_caller(record) == Staging::lane_count() - 1, record);
  }
}

// Some starts refused: the lanes that got threads and those that run after lane 0 share the
// transfer.
BOOST_AUTO_TEST_CASE(a_transfer_completes_when_some_lane_threads_cannot_start) {
  Context context = make_context();
  mqlcl_test_refuse_thread_starts(MQLCL_TEST_EVERY_OTHER_THREAD_REFUSED);
  const std::vector<std::string> records = round_trip(context, 2);
  mqlcl_test_refuse_thread_starts(MQLCL_TEST_THREADS_STARTED);
  for (const std::string &record : records)
    BOOST_TEST(lanes_on_caller(record) < Staging::lane_count(), record);
}

// Once threads start again, the pool starts its own and the transfers run on them.
BOOST_AUTO_TEST_CASE(the_parked_threads_serve_once_threads_start_again) {
  Context context = make_context();
  const std::vector<std::string> records = round_trip(context, 3);
  for (const std::string &record : records) {
    BOOST_TEST(record.find("; on threads started for the call") == std::string::npos, record);
    BOOST_TEST(lanes_on_caller(record) == 0u, record);
  }
}

BOOST_AUTO_TEST_SUITE_END()
