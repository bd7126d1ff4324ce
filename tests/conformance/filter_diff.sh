#!/usr/bin/env bash
# Filtered scans of every shared Delta table agree with the unfiltered scan
# filtered in Python (see filter_diff.py).
exec python3 "$(dirname "$0")/filter_diff.py" "${1:-build/deltac}"
