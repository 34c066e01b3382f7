// The bridge's exports as a host program reaches them: resolved from the loaded file (dlopen,
// dlsym), or in a program linked against libmqlcl.so its own symbols. Shared by the tests that
// load, unload and exit with the bridge (tests/reliability).
#pragma once

#include <mqlcl/mqlcl.h>

#include <dlfcn.h>

namespace mqlcl_test {

struct DlopenedBridge {
  void *library = nullptr; // nullptr when linked
#define MQLCL_TEST_EXPORTS(X)                                                                      \
  X(CLContextCreate)                                                                               \
  X(CLContextFree)                                                                                 \
  X(CLProgramCreate)                                                                               \
  X(CLProgramFree)                                                                                 \
  X(CLKernelCreate)                                                                                \
  X(CLKernelFree)                                                                                  \
  X(CLBufferCreate)                                                                                \
  X(CLBufferFree)                                                                                  \
  X(CLBufferWrite)                                                                                 \
  X(CLBufferRead)                                                                                  \
  X(CLSetKernelArg)                                                                                \
  X(CLSetKernelArgMem)                                                                             \
  X(CLExecute)                                                                                     \
  X(CLExecutionStatus)                                                                             \
  X(CLGetInfoInteger)                                                                              \
  X(CLGetLastError)                                                                                \
  X(CLBufferReadStart)                                                                             \
  X(CLBufferReadStatus)                                                                            \
  X(CLBufferReadTake)                                                                              \
  X(CLOwnerCreate)                                                                                 \
  X(CLOwnerSelect)                                                                                 \
  X(CLOwnerFree)                                                                                   \
  X(CLGemm)                                                                                        \
  X(CLMatMul)
#define MQLCL_TEST_POINTER(name) decltype(&::name) name = nullptr;
  MQLCL_TEST_EXPORTS(MQLCL_TEST_POINTER)
#undef MQLCL_TEST_POINTER

  // dlopen(path) and every export from it; false (dlerror() says why) when one is missing.
  bool load(const char *path) {
    library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr)
      return false;
#define MQLCL_TEST_RESOLVE(name)                                                                   \
  name = reinterpret_cast<decltype(name)>(dlsym(library, #name));                                  \
  if (name == nullptr)                                                                             \
    return false;
    MQLCL_TEST_EXPORTS(MQLCL_TEST_RESOLVE)
#undef MQLCL_TEST_RESOLVE
    return true;
  }

  // The program's own symbols, in a program linked against libmqlcl.so (an inline member, so a
  // program that never calls it needs no such symbols).
  void link() {
#define MQLCL_TEST_LINK(name) name = &::name;
    MQLCL_TEST_EXPORTS(MQLCL_TEST_LINK)
#undef MQLCL_TEST_LINK
  }
#undef MQLCL_TEST_EXPORTS
};

} // namespace mqlcl_test
