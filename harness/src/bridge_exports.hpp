// The bridge's exports that a caller loading the library by name resolves, as an X-macro: X(name)
// once per export. Written once for the harness (bridge.hpp) and for the Windows loader tests
// (tests/windows/loaded_bridge.hpp). Each name is declared in include/mqlcl/mqlcl.h, or their
// decltype(&::name) does not compile; the header's other exports (the 64-bit buffer calls, the
// owners, the non-blocking reads, CLSetLastError) are not called this way.
#pragma once

#define MQLCL_BRIDGE_EXPORTS(X)                                                                    \
  X(CLHandleType)                                                                                  \
  X(CLGetInfoInteger)                                                                              \
  X(CLGetInfoString)                                                                               \
  X(CLContextCreate)                                                                               \
  X(CLContextFree)                                                                                 \
  X(CLGetDeviceInfo)                                                                               \
  X(CLProgramCreate)                                                                               \
  X(CLProgramCreateEx)                                                                             \
  X(CLProgramFree)                                                                                 \
  X(CLKernelCreate)                                                                                \
  X(CLKernelFree)                                                                                  \
  X(CLSetKernelArg)                                                                                \
  X(CLSetKernelArgMem)                                                                             \
  X(CLSetKernelArgMemLocal)                                                                        \
  X(CLBufferCreate)                                                                                \
  X(CLBufferFree)                                                                                  \
  X(CLBufferWrite)                                                                                 \
  X(CLBufferRead)                                                                                  \
  X(CLBufferTensorMap)                                                                             \
  X(CLGemm)                                                                                        \
  X(CLMatMul)                                                                                      \
  X(CLExecute)                                                                                     \
  X(CLExecutionStatus)                                                                             \
  X(CLGetLastError)                                                                                \
  X(CLResetLastError)
