/* tests/support/thread_start_failures.c: pthread_create refused on request. */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

enum {
  MQLCL_TEST_THREADS_STARTED = 0,            /* every start goes to the C library */
  MQLCL_TEST_THREADS_REFUSED = 1,            /* every start fails with EAGAIN */
  MQLCL_TEST_EVERY_OTHER_THREAD_REFUSED = 2, /* one start in two fails */
};

/* From now on, thread starts go as `how` says. */
void mqlcl_test_refuse_thread_starts(int how);
/* Starts refused since the process began. */
unsigned mqlcl_test_thread_starts_refused(void);

#ifdef __cplusplus
}
#endif
