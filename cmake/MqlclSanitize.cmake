# MQLCL_SANITIZE: sanitizers for every target of the build (the bridge, the tests, the fuzzers),
# e.g. "address;undefined" (the asan and fuzz presets) or "thread" (the tsan preset).
#
# Sets MQLCL_SANITIZE_FLAGS (the compile flags) for sub-builds that need them too. The run-time
# options and suppressions (sanitizers/*.supp) come from the asan and tsan test presets.
set(MQLCL_SANITIZE "" CACHE STRING "Sanitizers for every target: \"address;undefined\" or \"thread\"")
set(MQLCL_SANITIZE_FLAGS "")

if(MQLCL_SANITIZE)
  if(MSVC)
    message(FATAL_ERROR "MQLCL_SANITIZE needs GCC or Clang")
  endif()
  if("thread" IN_LIST MQLCL_SANITIZE AND "address" IN_LIST MQLCL_SANITIZE)
    message(FATAL_ERROR "MQLCL_SANITIZE: thread and address cannot be combined")
  endif()
  list(JOIN MQLCL_SANITIZE "," sanitizers)
  # Frame pointers give whole stacks in reports; no recovery, so undefined behaviour fails the
  # test that triggers it instead of printing a line nobody reads.
  set(MQLCL_SANITIZE_FLAGS -fsanitize=${sanitizers} -fno-omit-frame-pointer
                           -fno-sanitize-recover=all)
  add_compile_options(${MQLCL_SANITIZE_FLAGS})
  add_link_options(-fsanitize=${sanitizers})
endif()

