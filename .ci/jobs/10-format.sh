#!/usr/bin/env bash
# Every C and C++ file follows the checked-in .clang-format.
set -euo pipefail
tools/install-deps.sh clang-format
tools/format.sh --check
