#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The gk5 authors
# Every C source, header and shell script of the source tree carries the
# SPDX line (in its first three lines) and a copyright line, and LICENSE
# exists.  Build directories (build*) and .git are not part of the tree.
#
#   tools/check_license.sh [SOURCE_ROOT]
#
# Exit status: 0 clean, 1 a file without the lines, 2 usage error.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
if [ ! -f "$root/meson.build" ]; then
    echo "check_license: $root is not gk5's source tree (no meson.build)" >&2
    exit 2
fi
status=0
if [ ! -s "$root/LICENSE" ]; then
    echo "check_license: $root/LICENSE is missing or empty"
    status=1
fi
n=0
while IFS= read -r -d '' f; do
    n=$((n + 1))
    rel=${f#"$root"/}
    if ! head -n 3 "$f" | grep -q 'SPDX-License-Identifier: MIT'; then
        echo "$rel: no 'SPDX-License-Identifier: MIT' line in its first three lines"
        status=1
    fi
    if ! head -n 4 "$f" | grep -q 'Copyright (c) [0-9]\{4\}'; then
        echo "$rel: no copyright line in its first four lines"
        status=1
    fi
done < <(find "$root" \( -path "$root/.git" -o -path "$root/build*" -o -path "$root/subprojects" \) -prune \
    -o -type f \( -name '*.c' -o -name '*.h' -o -name '*.sh' \) -print0)
if [ "$n" -eq 0 ]; then
    echo "check_license: no .c, .h or .sh files under $root" >&2
    exit 2
fi
echo "check_license: $n files checked: $([ "$status" -eq 0 ] && echo OK || echo FAILED)"
exit "$status"
