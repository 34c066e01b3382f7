#!/bin/sh
# The bridge registers no destructor to run at process exit, bar its exit handler (lifetime.cpp):
# exit() would run it while other threads are still inside the bridge (process_state.hpp). Lists
# each function of the built library that calls __cxa_atexit or __cxa_thread_atexit (how the
# compiler registers the destructor of a static or thread_local object) and fails on any other.
# Usage: exit_destructors.sh OBJDUMP LIBRARY
set -eu
objdump=$1
library=$2
callers=$("$objdump" -d -C --no-show-raw-insn "$library" | awk '
  /^[0-9a-f]+ <.*>:$/ { name = $0; sub(/^[0-9a-f]+ </, "", name); sub(/>:$/, "", name) }
  /(call|jmp).*<__cxa_(thread_)?atexit(_impl)?@plt>/ { print name }' | sort -u)
handler='^mqlcl::(watch_for_process_exit\(\)|\(anonymous namespace\)::register_exit_flag\(\))$'
if ! printf '%s\n' "$callers" | grep -Eq "$handler"; then
  echo "no call of __cxa_atexit from the exit handler's registration: is $library the bridge?"
  exit 1
fi
others=$(printf '%s\n' "$callers" | grep -Ev "$handler" || true)
if [ -n "$others" ]; then
  echo "static or thread_local objects with destructors, registered by:"
  printf '%s\n' "$others" | sed 's/^/  /'
  echo "make each a process_wide object (bridge/src/process_state.hpp) or trivially destructible"
  exit 1
fi
echo "no exit-time destructor in $library"
