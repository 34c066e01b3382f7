/* The public header compiled as strict C99, and its functions called from C. */
#include <mqlcl/mqlcl.h>

#include <stdio.h>

int main(void) {
  char16_t text[64];
  int32_t type = CLHandleType(12345);
  CLResetLastError();
  CLContextFree(-7); /* not a handle: must fail softly */
  if (type != MQLCL_OPENCL_INVALID || CLGetLastError() != MQLCL_ERR_OPENCL_INVALID_HANDLE) {
    fprintf(stderr, "unexpected: type %d, last error %d\n", (int)type, (int)CLGetLastError());
    return 1;
  }
  if (!CLGetInfoString(0, MQLCL_CL_BRIDGE_VERSION, text, 64) || text[0] != 'm') {
    fprintf(stderr, "CLGetInfoString failed: %d\n", (int)CLGetLastError());
    return 1;
  }
  printf("C99 caller OK\n");
  return 0;
}
