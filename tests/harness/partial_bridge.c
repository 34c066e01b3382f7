/* A library that exports one of the bridge's 22 functions: mqlcl-replay must refuse it clearly
   (tests/harness/test_cli.cpp). */
#if defined(_WIN32)
#define PARTIAL_EXPORT __declspec(dllexport)
#else
#define PARTIAL_EXPORT __attribute__((visibility("default")))
#endif

PARTIAL_EXPORT int CLHandleType(int handle) {
  return handle * 0;
}
