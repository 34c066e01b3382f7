// Large CLBufferWrite/CLBufferRead calls through the context's pinned staging slots, on the real
// device. ctest runs this twice: with MQLCL_STAGING=on, which stages on PoCL too, and with the
// default (auto), where a CPU device goes direct; every data check holds either way. The fault
// layer (tests/reliability/fault_layer.hpp) sits over the real driver to count the chunks each
// call enqueues, which proves the path taken, and to fail OpenCL calls inside the staged path.
#define BOOST_TEST_MODULE bridge_staging
#include "devices.hpp"
#include "fault_layer.hpp"
#include "leak_check.hpp"
#include "objects.hpp"
#include "opencl_device.hpp"
#include "random_bytes.hpp"
#include "staging_mode.hpp"
#include "test_kernels.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace mqlcl_test;
using mqlcl::Staging;
using mqlcl_fault::Call;
using mqlcl_fault::Kind;
using mqlcl_fault::LeakCheck;

namespace {

const size_t kChunk = Staging::chunk_bytes();
// The context's ring of slots; a transfer of more chunks refills some of them.
const size_t kRing = Staging::kSlotsPerLane * Staging::lane_count();

using mqlcl_fault::InstallOverDriver;
BOOST_TEST_GLOBAL_FIXTURE(InstallOverDriver);

// What the bridge promises (docs/api.md): with MQLCL_STAGING=on every transfer is staged; under
// auto, those of at least the threshold on a GPU that does not share the host's memory.
bool expect_staged(int32_t context, size_t bytes) {
  if (staging_forced())
    return true;
  std::string mode = staging_variable();
  if (mode == "off" || mode == "0" || bytes < Staging::kThresholdBytes)
    return false;
  auto device = mqlcl::device_of(context, "expect_staged");
  return (device->type & CL_DEVICE_TYPE_GPU) != 0 && !device->host_unified_memory;
}

// The clEnqueueWriteBuffer/clEnqueueReadBuffer calls one transfer makes: one per chunk when staged.
uint64_t expected_enqueues(int32_t context, size_t bytes) {
  if (!expect_staged(context, bytes))
    return 1;
  return (bytes + kChunk - 1) / kChunk; // reads and writes alike: one chunk per slot
}

// The events it takes: one per chunk when staged, none for the direct path's blocking call.
int64_t expected_events(int32_t context, size_t bytes) {
  return expect_staged(context, bytes) ? static_cast<int64_t>(expected_enqueues(context, bytes))
                                       : 0;
}

// Index of the first byte where a and b differ over `count` bytes, or -1.
int64_t first_difference(const uint8_t *a, const uint8_t *b, size_t count) {
  auto mismatch = std::mismatch(a, a + count, b);
  return mismatch.first == a + count ? -1 : static_cast<int64_t>(mismatch.first - a);
}

// Index of the first byte of `got` that is neither as it was (`before`) nor, within the range of
// `length` bytes from `start`, as a transfer would have made it (`after`, the range's bytes);
// outside the range every byte must be as it was. -1 when there is none.
int64_t first_byte_neither(const std::vector<uint8_t> &got, const std::vector<uint8_t> &before,
                           const uint8_t *after, size_t start, size_t length) {
  for (size_t i = 0; i < got.size(); ++i) {
    const bool in_range = i >= start && i - start < length;
    if (got[i] != before[i] && !(in_range && got[i] == after[i - start]))
      return static_cast<int64_t>(i);
  }
  return -1;
}

} // namespace

BOOST_AUTO_TEST_SUITE(staging, *boost::unit_test::precondition(needs_device()))

// Sizes under, at and over one chunk, odd ones among them, at odd offsets on both sides: every
// byte of the buffer and of the caller's array is what it must be, and nothing else changed.
BOOST_AUTO_TEST_CASE(transfers_of_every_shape_round_trip_byte_for_byte) {
  LeakCheck leaks;
  {
    Context context = make_context();
    const uint32_t buffer_bytes =
        static_cast<uint32_t>(std::max((kRing + 2) * kChunk, Staging::kThresholdBytes) + 65536);
    Buffer buffer = make_buffer(context, buffer_bytes);
    std::vector<uint8_t> device_image(buffer_bytes, 0); // what the buffer must hold

    struct Shape {
      size_t bytes;
      uint32_t element_size, buffer_offset, data_offset;
    };
    const Shape shapes[] = {
        {3, 1, 1, 1},                               // a few bytes
        {Staging::kThresholdBytes - 1, 1, 3, 5},    // just under auto's threshold
        {Staging::kThresholdBytes, 1, 0, 0},        // auto's smallest staged size
        {kChunk / 2 + 3, 1, 4099, 7},               // under one chunk, odd length and offsets
        {kChunk, 4, 0, 0},                          // exactly one chunk
        {kChunk, 4, 12, 3},                         // one chunk, straddling two chunks' bounds
        {kChunk + 1, 1, 1, 1},                      // a chunk and a byte
        {2 * kChunk, 8, 40, 2},                     // exactly two chunks
        {3 * kChunk + 4097, 1, 65535, 11},          // several chunks, neither a multiple of 4
        {(kRing + 1) * kChunk + 4097, 1, 8191, 13}, // enough chunks to refill some slots
        {buffer_bytes, 4, 0, 0},                    // the whole buffer
    };
    uint32_t seed = 1;
    for (const Shape &shape : shapes) {
      BOOST_TEST_CONTEXT("bytes " << shape.bytes << ", element_size " << shape.element_size
                                  << ", buffer_offset " << shape.buffer_offset << ", data_offset "
                                  << shape.data_offset) {
        const uint32_t count = static_cast<uint32_t>(shape.bytes / shape.element_size);
        const size_t host_offset = size_t{shape.data_offset} * shape.element_size;
        std::vector<uint8_t> source = random_bytes(host_offset + shape.bytes + 64, seed++);

        uint64_t writes = mqlcl_fault::calls(Call::clEnqueueWriteBuffer);
        int64_t events = mqlcl_fault::acquired(Kind::event);
        BOOST_TEST_REQUIRE(CLBufferWrite(buffer, source.data(), shape.buffer_offset,
                                         shape.data_offset, count, shape.element_size) == count,
                           last_error);
        BOOST_TEST(mqlcl_fault::calls(Call::clEnqueueWriteBuffer) - writes ==
                   expected_enqueues(context, shape.bytes));
        BOOST_TEST(mqlcl_fault::acquired(Kind::event) - events ==
                   expected_events(context, shape.bytes));
        std::memcpy(device_image.data() + shape.buffer_offset, source.data() + host_offset,
                    shape.bytes);

        // The range back into an array with guard bytes around it: only the range changes.
        std::vector<uint8_t> target = random_bytes(source.size(), seed++);
        const std::vector<uint8_t> before = target;
        uint64_t reads = mqlcl_fault::calls(Call::clEnqueueReadBuffer);
        events = mqlcl_fault::acquired(Kind::event);
        BOOST_TEST_REQUIRE(CLBufferRead(buffer, target.data(), shape.buffer_offset,
                                        shape.data_offset, count, shape.element_size) == count,
                           last_error);
        BOOST_TEST(mqlcl_fault::calls(Call::clEnqueueReadBuffer) - reads ==
                   expected_enqueues(context, shape.bytes));
        BOOST_TEST(mqlcl_fault::acquired(Kind::event) - events ==
                   expected_events(context, shape.bytes));
        BOOST_TEST(first_difference(target.data() + host_offset, source.data() + host_offset,
                                    shape.bytes) == -1);
        BOOST_TEST(first_difference(target.data(), before.data(), host_offset) == -1);
        BOOST_TEST(first_difference(target.data() + host_offset + shape.bytes,
                                    before.data() + host_offset + shape.bytes, 64) == -1);

        // The whole buffer: the write touched its range and nothing else.
        std::vector<uint8_t> whole(buffer_bytes, 0xA5);
        BOOST_TEST_REQUIRE(CLBufferRead(buffer, whole.data(), 0, 0, buffer_bytes, 1) ==
                           buffer_bytes);
        BOOST_TEST(first_difference(whole.data(), device_image.data(), buffer_bytes) == -1);
      }
    }
    // The buffer, and the slots when staged: set up once for the context, not per call.
    const int64_t slots = static_cast<int64_t>(Staging::kSlotsPerLane * Staging::lane_count());
    BOOST_TEST(mqlcl_fault::live(Kind::memory) - leaks.baseline[size_t(Kind::memory)] ==
               (expect_staged(context, buffer_bytes) ? 1 + slots : 1));
  }
  leaks.verify();
}

// A kernel between a staged write and a staged read sees the written data, and the read, with no
// finish of its own, sees the kernel's result.
BOOST_AUTO_TEST_CASE(a_kernel_sees_staged_writes_and_a_staged_read_sees_the_kernel) {
  Context context = make_context();
  Program program = make_program(context, kTestKernels);
  Kernel kernel = make_kernel(program, u"axpy");
  const uint32_t n = static_cast<uint32_t>((5 * kChunk + 4 * 1001) / 4); // six chunks, odd tail
  std::vector<float> x(n), y(n), result(n, -1.0f);
  std::mt19937 random(7);
  std::uniform_int_distribution<int> value(-64, 64);
  for (uint32_t i = 0; i < n; ++i) { // multiples of 1/8: a*x + y is exact
    x[i] = static_cast<float>(value(random)) / 8.0f;
    y[i] = static_cast<float>(value(random)) / 8.0f;
  }
  Buffer bx = make_buffer(context, n * 4, MQLCL_MEM_READ_ONLY);
  Buffer by = make_buffer(context, n * 4);
  uint64_t writes = mqlcl_fault::calls(Call::clEnqueueWriteBuffer);
  BOOST_TEST(CLBufferWrite(bx, x.data(), 0, 0, n, 4) == n);
  BOOST_TEST(CLBufferWrite(by, y.data(), 0, 0, n, 4) == n);
  BOOST_TEST(mqlcl_fault::calls(Call::clEnqueueWriteBuffer) - writes ==
             2 * expected_enqueues(context, n * size_t{4}));
  const float a = 2.5f;
  BOOST_TEST(CLSetKernelArgMem(kernel, 0, bx) == 1);
  BOOST_TEST(CLSetKernelArgMem(kernel, 1, by) == 1);
  BOOST_TEST(CLSetKernelArg(kernel, 2, &a, sizeof a) == 1);
  const uint32_t global[1] = {n};
  BOOST_TEST_REQUIRE(CLExecute(kernel, 1, nullptr, global, nullptr) == 1, last_error);
  BOOST_TEST_REQUIRE(CLBufferRead(by, result.data(), 0, 0, n, 4) == n, last_error);
  size_t wrong = 0;
  for (uint32_t i = 0; i < n; ++i)
    wrong += result[i] != a * x[i] + y[i] ? 1 : 0;
  BOOST_TEST(wrong == 0u);
}

// A write returns once the caller's array may be reused, its last chunks still on their way to
// the device: the program overwrites its array at once and writes another buffer from it (whose
// copies refill the slots those chunks left), then frees the context with a write's DMA
// possibly still running. Each buffer holds what it was written, and nothing leaks.
BOOST_AUTO_TEST_CASE(a_write_returns_when_the_array_may_be_reused) {
  LeakCheck leaks;
  {
    Context context = make_context();
    const size_t bytes = (kRing + 1) * kChunk + 4097; // enough chunks to refill some slots
    Buffer first = make_buffer(context, static_cast<uint32_t>(bytes));
    Buffer second = make_buffer(context, static_cast<uint32_t>(bytes));
    std::vector<uint8_t> array = random_bytes(bytes, 31);
    const std::vector<uint8_t> first_data = array;
    for (int round = 0; round < 3; ++round) {
      BOOST_TEST_CONTEXT("round " << round) {
        BOOST_TEST_REQUIRE(CLBufferWrite(first, array.data(), 0, 0, uint32_t(bytes), 1) == bytes);
        array = random_bytes(bytes, 32 + round);
        const std::vector<uint8_t> second_data = array;
        BOOST_TEST_REQUIRE(CLBufferWrite(second, array.data(), 0, 0, uint32_t(bytes), 1) == bytes);
        std::fill(array.begin(), array.end(), uint8_t{0xEE});
        std::vector<uint8_t> back(bytes);
        BOOST_TEST_REQUIRE(CLBufferRead(first, back.data(), 0, 0, uint32_t(bytes), 1) == bytes);
        BOOST_TEST(first_difference(back.data(), first_data.data(), bytes) == -1);
        BOOST_TEST_REQUIRE(CLBufferRead(second, back.data(), 0, 0, uint32_t(bytes), 1) == bytes);
        BOOST_TEST(first_difference(back.data(), second_data.data(), bytes) == -1);
        array = first_data;
      }
    }
    BOOST_TEST_REQUIRE(CLBufferWrite(first, array.data(), 0, 0, uint32_t(bytes), 1) == bytes);
  } // the context goes with that write's last chunks possibly in flight
  leaks.verify();
}

// CL_LAST_TRANSFER: nothing before the context's first transfer; then the last write's or read's
// bytes and path, staged with its lanes, chunks and times (host copies and DMA both taken, and
// the lanes' copies within lanes times the call), or direct with its time; a failed transfer
// leaves the record of the last one that completed.
BOOST_AUTO_TEST_CASE(the_last_transfer_says_where_its_time_went) {
  Context context = make_context();
  std::vector<char16_t> none(4096);
  MQLCL_CHECK_FAILS(CLGetInfoString(context, MQLCL_CL_LAST_TRANSFER, none.data(), 4096), 0,
                    MQLCL_ERR_OPENCL_EXECUTE);
  const size_t bytes = (kRing + 1) * kChunk + 4097; // some slots refilled
  Buffer buffer = make_buffer(context, static_cast<uint32_t>(bytes));
  const std::vector<uint8_t> data = random_bytes(bytes, 21);
  std::vector<uint8_t> back(bytes);
  // A write before, whose last DMA may still be in the slots: the record counts only the call's.
  BOOST_TEST_REQUIRE(CLBufferWrite(buffer, data.data(), 0, 0, uint32_t(bytes), 1) == bytes);
  for (bool read : {false, true}) {
    BOOST_TEST_REQUIRE((read ? CLBufferRead(buffer, back.data(), 0, 0, uint32_t(bytes), 1)
                             : CLBufferWrite(buffer, data.data(), 0, 0, uint32_t(bytes), 1)) ==
                       bytes);
    const std::string text = info_string(context, MQLCL_CL_LAST_TRANSFER);
    BOOST_TEST_MESSAGE(text);
    const std::string head =
        std::string(read ? "read " : "write ") + std::to_string(bytes) +
        (expect_staged(context, bytes) ? " bytes staged (lanes " : " bytes direct: ");
    BOOST_TEST_REQUIRE(text.rfind(head, 0) == 0, text);
    double call = 0, copies = 0, waits = 0, dma = 0;
    unsigned lanes = 0, chunks = 0, running = 0;
    if (expect_staged(context, bytes)) {
      BOOST_TEST_REQUIRE(std::sscanf(text.c_str() + head.size(),
                                     "%u, chunks %u): %lf ms; host copies %lf ms and waits "
                                     "%lf ms over the lanes, DMA %lf ms; %u chunks still",
                                     &lanes, &chunks, &call, &copies, &waits, &dma,
                                     &running) == (read ? 6 : 7),
                         text);
      BOOST_TEST(chunks == expected_enqueues(context, bytes));
      BOOST_TEST(lanes == Staging::lane_count()); // the lanes that take the chunks' pieces
      BOOST_TEST(copies > 0);
      if (read) {
        BOOST_TEST(dma > 0); // every chunk's DMA waited for
      } else {
        // Only the last chunks can still be running, one per slot; the DMA of those before,
        // waited for to refill their slots, taken.
        BOOST_TEST(running <= std::min<unsigned>(chunks, unsigned(kRing)), text);
        BOOST_TEST(dma > 0, text);
      }
      BOOST_TEST(waits >= 0);
      BOOST_TEST(copies <= lanes * call + 0.001, text); // each lane copies within the call
      double enqueues = -1, last_start = -1;
      const size_t tail = text.find("; enqueues ");
      BOOST_TEST_REQUIRE(tail != std::string::npos, text);
      BOOST_TEST_REQUIRE(std::sscanf(text.c_str() + tail,
                                     "; enqueues %lf ms over the lanes, the last lane began at "
                                     "%lf ms",
                                     &enqueues, &last_start) == 2,
                         text);
      BOOST_TEST(enqueues > 0);
      BOOST_TEST((last_start >= 0 && last_start <= call), text);
    } else {
      BOOST_TEST_REQUIRE(std::sscanf(text.c_str() + head.size(), "%lf ms", &call) == 1, text);
    }
    BOOST_TEST(call > 0);
  }
  BOOST_TEST(first_difference(back.data(), data.data(), bytes) == -1);
  const std::string kept = info_string(context, MQLCL_CL_LAST_TRANSFER);
  BOOST_TEST(CLBufferRead(buffer, back.data(), 1, 0, uint32_t(bytes), 1) == 0u); // out of range
  BOOST_TEST(info_string(context, MQLCL_CL_LAST_TRANSFER).rfind("read ", 0) == 0);
  BOOST_TEST(info_string(context, MQLCL_CL_LAST_TRANSFER).substr(0, 40) == kept.substr(0, 40));
}

// Threads transfer at once on one shared context (whose slots they share) and on contexts of
// their own; each checks its own data, round after round, at sizes that change per round.
BOOST_AUTO_TEST_CASE(threads_transfer_at_once_on_shared_and_own_contexts) {
  constexpr int kThreadsPerKind = 3;
  constexpr int kRounds = 4;
  Context shared = make_context();
  std::atomic<int> failures{0};
  std::vector<std::string> messages(2 * kThreadsPerKind);

  auto worker = [&](int id, bool own_context) {
    auto fail = [&](const std::string &what) {
      messages[static_cast<size_t>(id)] = what + ": " + last_error_text();
      ++failures;
    };
    int32_t context = shared;
    Context own;
    if (own_context) {
      own = Context(CLContextCreate(device_under_test()));
      context = own;
      if (context == MQLCL_INVALID_HANDLE)
        return fail("CLContextCreate");
    }
    const uint32_t capacity = static_cast<uint32_t>(Staging::kThresholdBytes + 2 * kChunk + 8192);
    Buffer buffer(CLBufferCreate(context, capacity, MQLCL_MEM_READ_WRITE));
    if (buffer.get() == MQLCL_INVALID_HANDLE)
      return fail("CLBufferCreate");
    for (int round = 0; round < kRounds; ++round) {
      const uint32_t offset = static_cast<uint32_t>(round * 1031);
      const uint32_t bytes = static_cast<uint32_t>(
          Staging::kThresholdBytes + (kChunk / 3) * static_cast<size_t>(round + id % 3) + round);
      std::vector<uint8_t> data = random_bytes(bytes, static_cast<uint32_t>(id * 100 + round));
      std::vector<uint8_t> back(bytes, 0);
      if (CLBufferWrite(buffer, data.data(), offset, 0, bytes, 1) != bytes)
        return fail("CLBufferWrite");
      if (CLBufferRead(buffer, back.data(), offset, 0, bytes, 1) != bytes)
        return fail("CLBufferRead");
      if (int64_t at = first_difference(back.data(), data.data(), bytes); at >= 0)
        return fail("thread " + std::to_string(id) + " round " + std::to_string(round) + ": byte " +
                    std::to_string(at) + " differs");
    }
  };

  std::vector<std::thread> threads;
  for (int id = 0; id < 2 * kThreadsPerKind; ++id)
    threads.emplace_back(worker, id, id >= kThreadsPerKind);
  for (std::thread &thread : threads)
    thread.join();
  BOOST_TEST(failures.load() == 0);
  for (const std::string &message : messages)
    BOOST_TEST(message.empty(), message);
}

// A freed buffer handle fails as documented, however large the transfer.
BOOST_AUTO_TEST_CASE(a_freed_buffer_fails_with_invalid_handle) {
  Context context = make_context();
  const uint32_t bytes = static_cast<uint32_t>(2 * kChunk);
  int32_t buffer = CLBufferCreate(context, bytes, MQLCL_MEM_READ_WRITE);
  BOOST_TEST_REQUIRE(buffer != MQLCL_INVALID_HANDLE);
  std::vector<uint8_t> data = random_bytes(bytes, 3);
  BOOST_TEST(CLBufferWrite(buffer, data.data(), 0, 0, bytes, 1) == bytes);
  CLBufferFree(buffer);
  std::vector<uint8_t> back(bytes, 0);
  MQLCL_CHECK_FAILS(CLBufferRead(buffer, back.data(), 0, 0, bytes, 1), 0u,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLBufferWrite(buffer, data.data(), 0, 0, bytes, 1), 0u,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  BOOST_TEST(std::all_of(back.begin(), back.end(), [](uint8_t b) { return b == 0; }));
}

BOOST_AUTO_TEST_SUITE_END()

// OpenCL failures inside the staged path: the call fails with the direct path's code, the next
// call works, and nothing is left behind. Only where staging is on.
BOOST_AUTO_TEST_SUITE(staging_failures, *boost::unit_test::precondition(needs_device()) *
                                            boost::unit_test::precondition(staging_is_forced()))

BOOST_AUTO_TEST_CASE(a_failed_call_inside_the_staged_path_fails_the_transfer) {
  struct Scenario {
    const char *what;
    bool write;   // CLBufferWrite, else CLBufferRead
    Call call;    // fails ...
    uint64_t nth; // ... the nth time the transfer makes it
    cl_int injected;
  };
  const Scenario scenarios[] = {
      {"first chunk's write", true, Call::clEnqueueWriteBuffer, 1, CL_OUT_OF_RESOURCES},
      {"third chunk's write", true, Call::clEnqueueWriteBuffer, 3,
       CL_MEM_OBJECT_ALLOCATION_FAILURE},
      {"flush after a write", true, Call::clFlush, 2, CL_OUT_OF_HOST_MEMORY},
      // The writes before left their last chunks' DMA running in the slots; this one waits for
      // such a DMA before refilling its slot, and a failed wait fails this write.
      {"wait for a chunk the writes before left running", true, Call::clWaitForEvents, 1,
       CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST},
      {"wait for another such chunk", true, Call::clWaitForEvents, 3, CL_OUT_OF_RESOURCES},
      {"first chunk's read", false, Call::clEnqueueReadBuffer, 1, CL_OUT_OF_RESOURCES},
      {"third chunk's read", false, Call::clEnqueueReadBuffer, 3, CL_OUT_OF_HOST_MEMORY},
      {"flush after a read", false, Call::clFlush, 1, CL_OUT_OF_RESOURCES},
      {"wait for a read", false, Call::clWaitForEvents, 2,
       CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST},
  };
  const uint32_t bytes = static_cast<uint32_t>(3 * kChunk + 5); // four chunks
  const uint32_t guard = 4096; // bytes around the range, in the buffer and in the read's array
  const uint32_t whole = bytes + 2 * guard;
  for (const Scenario &scenario : scenarios) {
    BOOST_TEST_CONTEXT(scenario.what) {
      LeakCheck leaks;
      {
        Context context = make_context();
        Buffer buffer = make_buffer(context, whole);
        const std::vector<uint8_t> before = random_bytes(whole, 10);       // the buffer's bytes
        const std::vector<uint8_t> data = random_bytes(bytes, 11);         // what the write writes
        const std::vector<uint8_t> array_before = random_bytes(whole, 12); // the read's array
        std::vector<uint8_t> array = array_before;
        // Writes before leave their DMA's events in every slot of the ring, so that a write
        // waits for one before its first copy; a read after them waits for them all, so that
        // the read under test waits for nothing but its own.
        const size_t chunks_per_write = (whole + kChunk - 1) / kChunk;
        for (size_t write = 0; write < (kRing + chunks_per_write - 1) / chunks_per_write; ++write)
          BOOST_TEST_REQUIRE(CLBufferWrite(buffer, before.data(), 0, 0, whole, 1) == whole);
        if (!scenario.write) {
          std::vector<uint8_t> image(whole);
          BOOST_TEST_REQUIRE(CLBufferRead(buffer, image.data(), 0, 0, whole, 1) == whole);
        }
        auto transfer = [&] {
          return scenario.write ? CLBufferWrite(buffer, data.data(), guard, 0, bytes, 1)
                                : CLBufferRead(buffer, array.data(), guard, guard, bytes, 1);
        };
        uint64_t injected_before = mqlcl_fault::faults_injected(scenario.call);
        mqlcl_fault::fail_call(scenario.call, scenario.nth, scenario.injected);
        CLResetLastError();
        uint32_t result = transfer();
        int32_t code = CLGetLastError();
        int64_t cl_status = CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR);
        std::string description = last_error_text();
        mqlcl_fault::clear_faults();

        BOOST_TEST(mqlcl_fault::faults_injected(scenario.call) == injected_before + 1);
        BOOST_TEST(result == 0u);
        BOOST_TEST(code == (scenario.write ? MQLCL_ERR_OPENCL_INTERNAL : MQLCL_ERR_OPENCL_EXECUTE),
                   description);
        BOOST_TEST(cl_status == scenario.injected);
        BOOST_TEST(description.find(mqlcl_fault::name_of(scenario.call)) != std::string::npos,
                   description);

        // What the failed call left (docs/errors.md): in the range, each byte as it was or as
        // the transfer would have made it; outside it, every byte as it was.
        std::vector<uint8_t> image(whole);
        BOOST_TEST_REQUIRE(CLBufferRead(buffer, image.data(), 0, 0, whole, 1) == whole);
        if (scenario.write) {
          BOOST_TEST(first_byte_neither(image, before, data.data(), guard, bytes) == -1);
        } else {
          BOOST_TEST(first_difference(image.data(), before.data(), whole) == -1);
          BOOST_TEST(first_byte_neither(array, array_before, before.data() + guard, guard, bytes) ==
                     -1);
        }

        // The same transfer works again, with the right data: no slot was left mid-transfer.
        CLResetLastError();
        BOOST_TEST(transfer() == bytes, last_error);
        if (scenario.write)
          BOOST_TEST(CLBufferRead(buffer, array.data(), guard, guard, bytes, 1) == bytes);
        BOOST_TEST(first_difference(array.data() + guard,
                                    scenario.write ? data.data() : before.data() + guard,
                                    bytes) == -1);
      }
      leaks.verify();
    }
  }
}

// Pinned memory that cannot be had (creating or mapping either slot fails): the transfer goes
// direct and succeeds, the context remembers and does not try again, and the half-made slots go
// back to the driver.
BOOST_AUTO_TEST_CASE(no_pinned_memory_falls_back_to_the_direct_path) {
  struct Scenario {
    const char *what;
    Call call;
    uint64_t nth;
    cl_int injected;
  };
  const Scenario scenarios[] = {
      {"first slot's buffer", Call::clCreateBuffer, 1, CL_MEM_OBJECT_ALLOCATION_FAILURE},
      {"second slot's buffer", Call::clCreateBuffer, 2, CL_OUT_OF_RESOURCES},
      {"first slot's map", Call::clEnqueueMapBuffer, 1, CL_MAP_FAILURE},
      {"second slot's map", Call::clEnqueueMapBuffer, 2, CL_OUT_OF_HOST_MEMORY},
  };
  const uint32_t bytes = static_cast<uint32_t>(2 * kChunk + 3);
  for (const Scenario &scenario : scenarios) {
    BOOST_TEST_CONTEXT(scenario.what) {
      LeakCheck leaks;
      {
        Context context = make_context();
        Buffer buffer = make_buffer(context, bytes);
        std::vector<uint8_t> data = random_bytes(bytes, 5), back(bytes, 0);
        uint64_t maps = mqlcl_fault::calls(Call::clEnqueueMapBuffer);
        uint64_t writes = mqlcl_fault::calls(Call::clEnqueueWriteBuffer);
        uint64_t reads = mqlcl_fault::calls(Call::clEnqueueReadBuffer);
        mqlcl_fault::fail_call(scenario.call, scenario.nth, scenario.injected);
        CLResetLastError();
        BOOST_TEST(CLBufferWrite(buffer, data.data(), 0, 0, bytes, 1) == bytes);
        BOOST_TEST(CLGetLastError() == 0, last_error);
        mqlcl_fault::clear_faults();
        BOOST_TEST(mqlcl_fault::faults_injected(scenario.call) > 0u);
        BOOST_TEST(CLBufferRead(buffer, back.data(), 0, 0, bytes, 1) == bytes);
        BOOST_TEST(first_difference(back.data(), data.data(), bytes) == -1);
        // Direct: one enqueue each; and no second attempt at the slots.
        BOOST_TEST(mqlcl_fault::calls(Call::clEnqueueWriteBuffer) - writes == 1u);
        BOOST_TEST(mqlcl_fault::calls(Call::clEnqueueReadBuffer) - reads == 1u);
        uint64_t maps_tried = mqlcl_fault::calls(Call::clEnqueueMapBuffer) - maps;
        BOOST_TEST(maps_tried <= 2u);
        BOOST_TEST(CLBufferWrite(buffer, data.data(), 0, 0, bytes, 1) == bytes);
        BOOST_TEST(mqlcl_fault::calls(Call::clEnqueueMapBuffer) - maps == maps_tried);
        BOOST_TEST(mqlcl_fault::live(Kind::memory) - leaks.baseline[size_t(Kind::memory)] == 1);
      }
      leaks.verify();
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
