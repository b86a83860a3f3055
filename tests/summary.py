#!/usr/bin/env python3
"""Count the test cases of one or more meson build directories and print "N passed, N failed".

Each TAP line of a test program counts as one case ("ok" passed, "not ok" failed, "# SKIP" is
skipped, "not ok ... # TODO" is a known failure TAP does not count as one: listed apart); a test that printed no TAP line counts as one case by meson's own result. A test that
failed without a failing TAP line (a crash, a timeout, a sanitizer report after the last case)
adds one failure, so nothing that went wrong is hidden. Exits 1 when anything failed or when no
test ran at all.
"""
import json
import os
import re
import sys

passed = failed = skipped = todo = 0
ran = False
for build in sys.argv[1:]:
    log = os.path.join(build, "meson-logs", "testlog.json")
    if not os.path.exists(log):
        print(f"summary: {build}: no test log (build or test step failed)")
        failed += 1
        continue
    with open(log) as f:
        for line in f:
            t = json.loads(line)
            ran = True
            out = t.get("stdout") or ""
            tap_ok = len(re.findall(r"^ok \d+(?! .*# SKIP)", out, re.M))
            tap_skip = len(re.findall(r"^ok \d+.*# SKIP", out, re.M))
            tap_fail = len(re.findall(r"^not ok (?!.*# TODO)\d+", out, re.M))
            tap_todo = len(re.findall(r"^not ok \d+.*# TODO", out, re.M))
            result = t.get("result")
            good = result in ("OK", "EXPECTEDFAIL")
            if tap_ok or tap_fail or tap_skip or tap_todo:
                passed += tap_ok
                failed += tap_fail
                skipped += tap_skip
                todo += tap_todo
                if not good and tap_fail == 0:
                    failed += 1
            elif result == "SKIP":
                skipped += 1
            elif good:
                passed += 1
            else:
                failed += 1
            if not good:
                print(f"summary: FAILED {build}: {t.get('name')} ({result})")
line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
if todo:
    line += f", {todo} known failures (TAP TODO)"
print(line)
sys.exit(1 if failed or not ran else 0)
