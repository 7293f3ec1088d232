"""Every Cast / CastLike pair of the package against onnx.reference, bit for bit.

Runs test/differential/differential_test.py --package --quick: the repository's
differential test (24 x 24 pairs x saturate x round_mode, random and adversarial inputs),
with tensorcast.cast / tensorcast.cast_like of this package in place of the C library.
Every element must equal onnx.reference or fall in one of the documented differences,
each checked against the test's own exact oracle (docs/semantics.md section 11).
"""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "test", "differential", "differential_test.py")


def test_every_pair_matches_onnx_reference_or_a_documented_difference():
    env = dict(os.environ)
    env.pop("TENSORCAST_C_LIB", None)  # --package does not use the C library
    proc = subprocess.run(
        [sys.executable, SCRIPT, "--package", "--quick"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=900,
    )
    out = proc.stdout
    tail = "\n".join(out.splitlines()[-60:])
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert lines, "differential_test.py printed nothing (exit %d)" % proc.returncode
    assert "python package tensorcast" in out, tail  # the package backend really ran
    m = re.fullmatch(r"(\d+) passed, (\d+) failed", lines[-1].strip())
    assert m, "unexpected last line %r\n%s" % (lines[-1], tail)
    passed, failed = int(m.group(1)), int(m.group(2))
    assert failed == 0 and proc.returncode == 0, "exit %d\n%s" % (proc.returncode, out[-20000:])
    # 26 x 26 pairs x 2 saturate x 3 round_mode configurations
    assert passed == 26 * 26 * 6, tail
