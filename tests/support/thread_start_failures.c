/* A preloadable stand-in for pthread_create that refuses thread starts on request (EAGAIN, as
 * when a process is out of threads or memory), else calls the C library's. Linked into a test
 * ahead of the C library, it is the pthread_create every library of the process calls: the
 * bridge's staging lanes can then be refused their threads. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "thread_start_failures.h"

typedef int (*create_function)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static atomic_int refusing = MQLCL_TEST_THREADS_STARTED;
static atomic_uint starts_asked, starts_refused;

void mqlcl_test_refuse_thread_starts(int how) {
  atomic_store(&refusing, how);
}

unsigned mqlcl_test_thread_starts_refused(void) {
  return atomic_load(&starts_refused);
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attributes, void *(*body)(void *),
                   void *argument) {
  static _Atomic(create_function) real;
  create_function create = atomic_load(&real);
  if (create == NULL) {
    create = (create_function)dlsym(RTLD_NEXT, "pthread_create");
    if (create == NULL)
      return EAGAIN;
    atomic_store(&real, create);
  }
  const unsigned asked = atomic_fetch_add(&starts_asked, 1);
  const int how = atomic_load(&refusing);
  if (how == MQLCL_TEST_THREADS_REFUSED ||
      (how == MQLCL_TEST_EVERY_OTHER_THREAD_REFUSED && asked % 2 == 0)) {
    atomic_fetch_add(&starts_refused, 1);
    return EAGAIN;
  }
  return create(thread, attributes, body, argument);
}
