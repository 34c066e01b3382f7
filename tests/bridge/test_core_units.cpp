// Units of the bridge core that need no OpenCL device: the handle table, UTF-16 conversion, error
// names, by-value argument sizes, the staging's streaming copy, the PTX rewrite of -mqlcl-nv-sm90a,
// the GEMM's test of batches whose matrices share elements, SHA-256, what keeps a build out of
// the program cache (build_inputs.hpp) and the staged transfers' pool of parked threads. Linked
// against the core's objects, not the shared library.
#define BOOST_TEST_MODULE bridge_core_units
#include "arg_types.hpp"
#include "build_inputs.hpp"
#include "devices.hpp"
#include "errors.hpp"
#include "gemm/kernels.hpp"
#include "gemm/operands.hpp"
#include "handle_table.hpp"
#include "host_copy.hpp"
#include "lane_pool.hpp"
#include "ptx_rewrite.hpp"
#include "sha256.hpp"
#include "utf16.hpp"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

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
  BOOST_CHECK(utf8_to_utf16(utf8) == std::u16string(text)); // Windows' wide strings
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
  BOOST_CHECK(utf8_to_utf16("\xC0\xAF\xFF") == u"\uFFFD\uFFFD\uFFFD");
}

// NVIDIA's GPUs from Volta on let a kernel's own arrays take more than the 48 KiB the driver
// reports; others, and NVIDIA parts the table does not know, keep what they report.
BOOST_AUTO_TEST_CASE(kernel_local_memory_is_the_reported_size_except_where_known_larger) {
  const cl_ulong reported = 48 << 10;
  BOOST_TEST(mqlcl::kernel_local_memory(reported, 0x10DE, 90) == (227u << 10) - 1024);
  BOOST_TEST(mqlcl::kernel_local_memory(reported, 0x10DE, 80) == (163u << 10) - 1024);
  BOOST_TEST(mqlcl::kernel_local_memory(reported, 0x10DE, 75) == (64u << 10) - 1024);
  BOOST_TEST(mqlcl::kernel_local_memory(reported, 0x10DE, 61) == reported); // Pascal
  BOOST_TEST(mqlcl::kernel_local_memory(reported, 0x10DE, 0) == reported);  // no cl_nv query
  BOOST_TEST(mqlcl::kernel_local_memory(reported, 0x1002, 90) == reported); // not NVIDIA
  BOOST_TEST(mqlcl::kernel_local_memory(4u << 20, 0x10DE, 90) == 4u << 20); // never below
}

BOOST_AUTO_TEST_CASE(error_names) {
  BOOST_TEST(cl_error_name(CL_INVALID_KERNEL_ARGS) == "CL_INVALID_KERNEL_ARGS");
  BOOST_TEST(cl_error_name(-9999) == "unknown OpenCL error -9999");
}

// What NVIDIA's OpenCL gives for a kernel with one marked instruction, NULs at the end included.
const std::string kDriverPtx = std::string(R"PTX(//
// Generated by NVIDIA NVVM Compiler
//
// Compiler Build ID: CL-34097967
// Based on NVVM 7.0.1
//

.version 9.0
.target sm_90
.address_size 64

	// .globl	probe

.entry probe(
	.param .u64 .ptr .global .align 4 probe_param_0
)
{
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<3>;

	// begin inline asm
	//@sm_90a wgmma.fence.sync.aligned;
	// end inline asm
	ld.param.u64 	%rd1, [probe_param_0];
	mov.u32 	%r1, 7;
	st.global.u32 	[%rd1], %r1;
	ret;

}
)PTX") + std::string(2, '\0');

BOOST_AUTO_TEST_CASE(sm90a_rewrite_retargets_and_unmarks_and_changes_nothing_else) {
  PtxRewrite rewrite = retarget_ptx_to_sm90a(kDriverPtx);
  BOOST_TEST_REQUIRE(!rewrite.error.has_value(), rewrite.error.value_or(""));
  std::string expected = kDriverPtx.substr(0, kDriverPtx.size() - 2); // no trailing NULs
  expected.replace(expected.find(".target sm_90\n"), 13, ".target sm_90a");
  expected.replace(expected.find("//@sm_90a "), 10, "");
  BOOST_TEST(rewrite.ptx == expected);
  BOOST_TEST(rewrite.ptx.find("\n\twgmma.fence.sync.aligned;\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(sm90a_rewrite_accepts_only_a_target_of_exactly_sm_90) {
  auto ptx_of = [](const std::string &text) {
    PtxRewrite rewrite = retarget_ptx_to_sm90a(text);
    return rewrite.error ? "error: " + *rewrite.error : rewrite.ptx;
  };
  BOOST_TEST(ptx_of(".version 9.0\n.target sm_90\n") == ".version 9.0\n.target sm_90a\n");
  BOOST_TEST(ptx_of(".target sm_90") == ".target sm_90a"); // at the end of the text
  BOOST_TEST(ptx_of("  \t.target\tsm_90, debug\n") == "  \t.target\tsm_90a, debug\n");
  BOOST_TEST(ptx_of(".target sm_90,debug\n") == ".target sm_90a,debug\n");
  BOOST_TEST(ptx_of(".target sm_90\r\n.address_size 64\r\n") ==
             ".target sm_90a\r\n.address_size 64\r\n");
  BOOST_TEST(ptx_of(".target sm_90 // comment\n") == ".target sm_90a // comment\n");
  for (const char *wrong :
       {".target sm_90a\n", ".target sm_89\n", ".target sm_900\n", ".target sm_9\n",
        ".target sm_90x\n", ".target\n", ".target \n", ".targetsm_90\n", ".targets sm_90\n",
        "// .target sm_90\n", "x .target sm_90\n", ".version 9.0\n.address_size 64\n"})
    BOOST_TEST(ptx_of(wrong).rfind("error: ", 0) == 0u, wrong);
  // Only the first .target counts.
  BOOST_TEST(ptx_of(".target sm_89\n.target sm_90\n").rfind("error: ", 0) == 0u);
  BOOST_TEST(ptx_of(".target sm_90\n.target sm_89\n") == ".target sm_90a\n.target sm_89\n");
  // The error quotes what the driver's text names, cut short.
  BOOST_TEST(ptx_of(".target sm_89\n").find("\"sm_89\", not sm_90") != std::string::npos);
  BOOST_TEST(ptx_of(".target " + std::string(1000, 'x')).size() < 200u);
}

BOOST_AUTO_TEST_CASE(sm90a_rewrite_removes_every_marker_and_only_the_marker) {
  auto ptx_of = [](const std::string &text) {
    PtxRewrite rewrite = retarget_ptx_to_sm90a(".target sm_90\n" + text);
    BOOST_TEST_REQUIRE(!rewrite.error.has_value());
    return rewrite.ptx.substr(15);
  };
  BOOST_TEST(ptx_of("\t//@sm_90a a; //@sm_90a b;\n") == "\ta; b;\n");
  BOOST_TEST(ptx_of("x;\n//@sm_90a ") == "x;\n");           // at the end of the text
  BOOST_TEST(ptx_of("//@sm_90a //@sm_90a y;\n") == "y;\n"); // back to back
  BOOST_TEST(ptx_of("//@sm_90a\n//@sm_90ab c;\n") == "//@sm_90a\n//@sm_90ab c;\n"); // no marker
  BOOST_TEST(ptx_of("// @sm_90a d;\n") == "// @sm_90a d;\n");
}

BOOST_AUTO_TEST_CASE(sm90a_rewrite_refuses_what_is_not_text_and_never_overruns) {
  BOOST_TEST(retarget_ptx_to_sm90a("").error.has_value());
  BOOST_TEST(retarget_ptx_to_sm90a(std::string(16, '\0')).error.has_value());
  std::string embedded = ".target sm_90\n";
  embedded.insert(3, 1, '\0');
  BOOST_TEST(retarget_ptx_to_sm90a(embedded).error.has_value());
  std::string after = ".target sm_90\n" + std::string(1, '\0') + "x";
  BOOST_TEST(retarget_ptx_to_sm90a(after).error.value_or("").find("NUL") != std::string::npos);
  // An ELF object, as PoCL gives.
  BOOST_TEST(retarget_ptx_to_sm90a(std::string("\x7F"
                                               "ELF\x02\x01\x01\0\0\0",
                                               10))
                 .error.has_value());

  // Random bytes, and every prefix of a real PTX text: an answer, never a crash (the ASan and
  // UBSan builds run this too).
  std::mt19937 random(2024);
  for (int round = 0; round < 2000; ++round) {
    std::string bytes(random() % 200, '\0');
    for (char &byte : bytes)
      byte = static_cast<char>(random() % 256);
    if (round % 2 == 1) // mostly text, with directives and markers in it
      bytes = ".target sm_90" + bytes.substr(0, bytes.size() / 2) + "//@sm_90a " + bytes;
    PtxRewrite rewrite = retarget_ptx_to_sm90a(bytes);
    BOOST_TEST_REQUIRE((rewrite.error.has_value() || !rewrite.ptx.empty()));
  }
  for (size_t length = 0; length <= kDriverPtx.size(); ++length) {
    std::string prefix = kDriverPtx.substr(0, length);
    PtxRewrite rewrite = retarget_ptx_to_sm90a(prefix);
    bool has_target = prefix.find(".target sm_90") != std::string::npos;
    BOOST_TEST_REQUIRE(rewrite.error.has_value() == !has_target, length);
    if (has_target)
      BOOST_TEST_REQUIRE(rewrite.ptx.find(".target sm_90a") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(sm90a_option_is_taken_as_a_whole_word_only) {
  auto take = [](std::string options) {
    bool found = take_build_option(options, kSm90aOption);
    return (found ? "taken: " : "kept: ") + options;
  };
  BOOST_TEST(take("-mqlcl-nv-sm90a") == "taken: ");
  BOOST_TEST(take("-DN=4 -mqlcl-nv-sm90a -cl-fast-relaxed-math") ==
             "taken: -DN=4 -cl-fast-relaxed-math");
  BOOST_TEST(take("-DN=4\t-mqlcl-nv-sm90a") == "taken: -DN=4");
  BOOST_TEST(take("-mqlcl-nv-sm90a  -DN=4 -mqlcl-nv-sm90a") == "taken: -DN=4");
  BOOST_TEST(take("") == "kept: ");
  BOOST_TEST(take("-DN=4") == "kept: -DN=4");
  BOOST_TEST(take("-mqlcl-nv-sm90ab") == "kept: -mqlcl-nv-sm90ab");
  BOOST_TEST(take("-D-mqlcl-nv-sm90a") == "kept: -D-mqlcl-nv-sm90a");
  BOOST_TEST(take("-mqlcl-nv-sm90a=1") == "kept: -mqlcl-nv-sm90a=1");
  BOOST_TEST(take("-I \"a -mqlcl-nv-sm90a b\"") == "kept: -I \"a -mqlcl-nv-sm90a b\"");
}

BOOST_AUTO_TEST_CASE(by_value_sizes_of_the_types_opencl_defines) {
  BOOST_TEST(by_value_size("char", 64) == 1u);
  BOOST_TEST(by_value_size("uchar", 64) == 1u);
  BOOST_TEST(by_value_size("unsigned char", 64) == 1u);
  BOOST_TEST(by_value_size("short", 64) == 2u);
  BOOST_TEST(by_value_size("half", 64) == 2u);
  BOOST_TEST(by_value_size("int", 64) == 4u);
  BOOST_TEST(by_value_size("uint", 64) == 4u);
  BOOST_TEST(by_value_size("unsigned int", 64) == 4u);
  BOOST_TEST(by_value_size("float", 64) == 4u);
  BOOST_TEST(by_value_size("long", 64) == 8u);
  BOOST_TEST(by_value_size("ulong", 32) == 8u);
  BOOST_TEST(by_value_size("double", 64) == 8u);
  BOOST_TEST(by_value_size("float2", 64) == 8u);
  BOOST_TEST(by_value_size("float3", 64) == 16u); // as large as a float4
  BOOST_TEST(by_value_size("float4", 64) == 16u);
  BOOST_TEST(by_value_size("char3", 64) == 4u);
  BOOST_TEST(by_value_size("short8", 64) == 16u);
  BOOST_TEST(by_value_size("double16", 64) == 128u);
  BOOST_TEST(by_value_size("half16", 64) == 32u);
  BOOST_TEST(by_value_size("size_t", 64) == 8u);
  BOOST_TEST(by_value_size("size_t", 32) == 4u);
  BOOST_TEST(by_value_size("ptrdiff_t", 32) == 4u);
  BOOST_TEST(by_value_size("uintptr_t", 64) == 8u);
  // Not known: structs, typedef'd names, widths OpenCL lacks, vectors of pointer-sized types.
  for (const char *unknown : {"pair_t", "struct pair", "my_float", "float5", "float32", "float1",
                              "float04", "size_t4", "4", "", "unsigned long long", "bool"})
    BOOST_TEST(by_value_size(unknown, 64) == 0u, unknown);
}

// The exact test against every element of small batches: interleaved matrices (heads side by side,
// rows that pass between another matrix's rows) share nothing, a window that slides shares.
BOOST_AUTO_TEST_CASE(batch_matrices_share_elements_exactly_when_they_do) {
  auto brute_force = [](uint64_t rows, uint64_t cols, uint64_t ld, uint64_t stride,
                        uint32_t batch) {
    std::set<uint64_t> seen;
    for (uint64_t p = 0; p < batch; ++p)
      for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t c = 0; c < cols; ++c)
          if (!seen.insert(p * stride + r * ld + c).second)
            return true;
    return false;
  };
  size_t shared = 0, cases = 0;
  for (uint64_t rows = 1; rows <= 5; ++rows)
    for (uint64_t cols = 1; cols <= 6; ++cols)
      for (uint64_t ld = cols; ld <= cols + 7; ++ld)
        for (uint64_t stride = 0; stride <= rows * ld + 3; ++stride)
          for (uint32_t batch : {1u, 2u, 3u, 7u}) {
            bool want = brute_force(rows, cols, ld, stride, batch);
            BOOST_TEST(gemm::batch_shares_elements(rows, cols, ld, stride, batch) == want,
                       rows << "x" << cols << " ld " << ld << " stride " << stride << " batch "
                            << batch);
            shared += want ? 1 : 0;
            ++cases;
          }
  BOOST_TEST(shared > cases / 10); // both answers are well represented
  BOOST_TEST(shared < cases - cases / 10);
  // The attention layout of docs/errors.md: 8 heads of 8 columns side by side in rows of 64.
  BOOST_TEST(!gemm::batch_shares_elements(5, 8, 64, 8, 8));
  BOOST_TEST(gemm::batch_shares_elements(256, 256, 256 + 65534, 1, 65535));
}

// FIPS 180-4's examples (the empty message, "abc", the 448- and 896-bit messages, a million
// "a"), and messages of lengths about a block's end (55, 56, 63, 64, 65, 119, 120 bytes: the
// padding's cases), with digests from Python's hashlib; fed whole and in uneven pieces.
BOOST_AUTO_TEST_CASE(sha256_matches_the_standards_vectors) {
  auto digits = [](size_t length) {
    std::string text;
    for (size_t i = 0; i < length; ++i)
      text += static_cast<char>('0' + i % 10);
    return text;
  };
  const std::vector<std::pair<std::string, std::string>> vectors = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmn"
       "opqrsmnopqrstnopqrstu",
       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
      {std::string(1000000, 'a'),
       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
      {digits(55), "f34d5a0f80c0cbf84c8c0b90218c22637abd199965249da736a20143c8c9c9d9"},
      {digits(56), "83aa034bda83e458a0dc9cbce0d4e354716aa0ff770ed37ac0ed2b292052e4af"},
      {digits(63), "074f6e9ac301d5d1b6df6f1dfb8c6f89c187ea945d352ce6a29279a9c630680b"},
      {digits(64), "9674d9e078535b7cec43284387a6ee39956188e735a85452b0050b55341cda56"},
      {digits(65), "52774b57c10e45040a61c14d35c1c8ebefe880082313aa0a21ebb077734cd067"},
      {digits(119), "d0cb70d05ff14123f114c0cca360c62077379cf1ac90e1bfafa9e9e4d827596a"},
      {digits(120), "08642f0525963875af954100280fe3009293fa7e19c273444f31464c9b089243"},
  };
  for (const auto &[message, digest] : vectors) {
    BOOST_TEST_CONTEXT("a message of " << message.size() << " bytes") {
      BOOST_TEST(to_hex(sha256(message)) == digest);
      Sha256 pieces;
      for (size_t at = 0, piece = 1; at < message.size(); at += piece, piece = piece * 3 % 97 + 1)
        pieces.update(std::string_view(message).substr(at, piece));
      BOOST_TEST(to_hex(pieces.digest()) == digest);
    }
  }
}

// Every spelling of a directive that reads a file keeps a build out of the program cache; a
// source that only mentions one (a comment, a string, a macro's name) does not.
BOOST_AUTO_TEST_CASE(builds_that_read_other_files_are_found_however_spelled) {
  const char *reads[] = {
      "#include \"a.h\"\n__kernel void k() {}",
      "__kernel void k() {}\n  #  include <a.h>",
      "%:include \"a.h\"",
      "?\?=include \"a.h\"",
      "#inc\\\nlude \"a.h\"",
      "#inc\\  \r\nlude \"a.h\"",
      "#inc?\?/\nlude \"a.h\"",
      "#/* a comment */include \"a.h\"",
      "#/* a comment\nover lines */include \"a.h\"",
      "/* a comment\n*/ #include \"a.h\"",
      "int x; /* a comment */\n#include \"a.h\"",
      "#include_next <a.h>",
      "#import \"a.h\"",
      "#embed \"a.bin\"",
      "#if __has_include(\"a.h\")\n#endif",
      "#pragma clang module import a",
      "_Pragma(\"clang module import a\")",
      "#define PRAGMA(x) _Pragma(#x)\nPRAGMA(clang module import a)",
      "constant char *s = R\"x(\" /* )x\";\n#include \"a.h\"\n/* */",
      "#define N 4\n#include \"a.h\"",
  };
  for (const char *source : reads)
    BOOST_TEST(program_cache::source_reads_files(source), source);
  const char *reads_nothing[] = {
      "__kernel void k(__global float *x) { x[0] = 1; }",
      "// the bias is included here\n__kernel void k() {}",
      "/* #include \"a.h\" */\n__kernel void k() {}",
      "/* included after its parameters\n   as #include lines */ __kernel void k() {}",
      "constant char s[] = \"#include\";",
      "int a = '#'; // #include\n",
      "#define INCLUDED 1\n#ifdef INCLUDED\n#endif",
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable",
      "#define INC(x) x\n__kernel void k() { int include = 1; }",
      "#define COPY(n) _Pragma(\"unroll\") for (int i = 0; i < n; ++i) {}",
  };
  for (const char *source : reads_nothing)
    BOOST_TEST(!program_cache::source_reads_files(source), source);

  // The GEMM's kernels (their #include lines inlined as they were embedded) are all cacheable.
  for (size_t i = 0; i < gemm::kKernelFileCount; ++i)
    BOOST_TEST(!program_cache::source_reads_files(gemm::kKernelFiles[i].text),
               gemm::kKernelFiles[i].name);

  for (const char *options :
       {"-I/x", "-cl-mad-enable -I /x", "-include a.h", "-imacros a.h", "-isystem /x", "-iquote /x",
        "--include-directory=/x", "@options.txt", "-Xclang -foo", "-fmodule-map-file=a.map",
        "-Wp,-include,a.h", "\"-I/a folder\""})
    BOOST_TEST(program_cache::options_read_files(options), options);
  for (const char *options : {"", "-cl-kernel-arg-info -DN=4 -cl-mad-enable",
                              "-DREALTYPE=float -cl-std=CL1.2 -w -Werror", "-mqlcl-nv-sm90a"})
    BOOST_TEST(!program_cache::options_read_files(options), options);
}

// Every alignment of target and source against a 64-byte line, and lengths around the copy's
// 16-byte head and 64-byte steps: each byte arrives, and none beside the target changes.
BOOST_AUTO_TEST_CASE(the_streaming_copy_copies_every_byte_and_no_other) {
  constexpr size_t kGuard = 80;
  std::mt19937 random(5);
  std::vector<unsigned char> source(4096 + 256);
  for (unsigned char &byte : source)
    byte = static_cast<unsigned char>(random());
  for (size_t length : {0, 1, 15, 16, 17, 63, 64, 65, 127, 1000, 4096 + 13})
    for (size_t target_shift = 0; target_shift < 64; target_shift += 3)
      for (size_t source_shift : {0, 1, 8, 16, 33}) {
        std::vector<unsigned char> target(length + 2 * kGuard + 64, 0xA5);
        unsigned char *into = target.data() + kGuard + target_shift;
        copy_streaming(into, source.data() + source_shift, length);
        BOOST_TEST_REQUIRE(std::memcmp(into, source.data() + source_shift, length) == 0,
                           "length " << length << ", target +" << target_shift);
        for (size_t i = 0; i < target.size(); ++i)
          if (target.data() + i < into || target.data() + i >= into + length)
            BOOST_TEST_REQUIRE(target[i] == 0xA5, "byte " << i << " outside the target changed");
      }
}

namespace {
// Which thread ran each lane of one call.
struct LaneRecord {
  std::mutex mutex;
  std::vector<std::thread::id> by_lane;
  explicit LaneRecord(size_t lanes) : by_lane(lanes) {}
  LanePool::Lane lane() {
    return [this](size_t index) {
      std::lock_guard<std::mutex> lock(mutex);
      BOOST_TEST(by_lane.at(index) == std::thread::id(), "lane " << index << " ran twice");
      by_lane.at(index) = std::this_thread::get_id();
    };
  }
  size_t distinct() const {
    return std::set<std::thread::id>(by_lane.begin(), by_lane.end()).size();
  }
};
} // namespace

// Every lane runs once per call, each on a thread of its own, lane 0 on the caller; the threads
// stay for the next calls, whatever their number of lanes.
BOOST_AUTO_TEST_CASE(the_lane_pool_runs_every_lane_once_on_threads_it_keeps) {
  LanePool pool(std::nullopt);
  std::set<std::thread::id> seen;
  for (size_t lanes : {4, 4, 2, 6, 1, 3, 6}) {
    LaneRecord record(lanes);
    BOOST_TEST_REQUIRE(pool.run(lanes, record.lane()));
    BOOST_TEST(record.by_lane[0] == std::this_thread::get_id());
    BOOST_TEST(record.distinct() == lanes);
    seen.insert(record.by_lane.begin(), record.by_lane.end());
  }
  BOOST_TEST(pool.threads_started() == 5u); // lanes 1 .. 5, started once each
  BOOST_TEST(pool.threads_alive() == 5u);
  BOOST_TEST(seen.size() == 6u); // the caller and the five
  for (int call = 0; call < 200; ++call)
    BOOST_TEST_REQUIRE(pool.run(6, [](size_t) {}));
  BOOST_TEST(pool.threads_started() == 5u);
}

// A second call while one holds the pool is refused at once (its caller then starts threads of
// its own); the pool serves again when the first is done.
BOOST_AUTO_TEST_CASE(the_lane_pool_serves_one_call_at_a_time) {
  LanePool pool(std::nullopt);
  std::mutex mutex;
  std::condition_variable changed;
  bool inside = false, second_tried = false, second_ran = true;
  std::thread first([&] {
    pool.run(3, [&](size_t index) {
      if (index != 1)
        return;
      std::unique_lock<std::mutex> lock(mutex);
      inside = true;
      changed.notify_all();
      changed.wait(lock, [&] { return second_tried; });
    });
  });
  {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return inside; });
  }
  std::atomic<int> ran{0};
  second_ran = pool.run(2, [&](size_t) { ++ran; });
  {
    std::lock_guard<std::mutex> lock(mutex);
    second_tried = true;
  }
  changed.notify_all();
  first.join();
  BOOST_TEST(!second_ran);
  BOOST_TEST(ran.load() == 0);
  BOOST_TEST(pool.run(2, [&](size_t) { ++ran; }));
  BOOST_TEST(ran.load() == 2);
}

// Threads idle for longer than the pool's limit leave (on Windows they hold the DLL loaded while
// they live); the next call starts them again and runs as before.
BOOST_AUTO_TEST_CASE(idle_lane_threads_leave_and_come_back) {
  LanePool pool(std::chrono::milliseconds(5));
  LaneRecord record(4);
  BOOST_TEST_REQUIRE(pool.run(4, record.lane()));
  BOOST_TEST(record.distinct() == 4u);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (pool.threads_alive() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  BOOST_TEST_REQUIRE(pool.threads_alive() == 0u);
  for (int call = 0; call < 50; ++call) { // each call may find some threads just leaving
    LaneRecord again(4);
    BOOST_TEST_REQUIRE(pool.run(4, again.lane()));
    BOOST_TEST_REQUIRE(again.distinct() == 4u);
    if (call % 10 == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  BOOST_TEST(pool.threads_started() >= 6u);
}
