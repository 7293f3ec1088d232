"""The package's type annotations: mypy --strict accepts a typed use of the whole API
(typing_usage.py), and rejects misuses, so the annotations are real (not Any)."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

MISUSES = """
import numpy as np
import tensorcast as tc

x = np.zeros(4, np.float32)
tc.set_num_threads("2")
n: str = tc.get_num_threads()
tc.cast(x)
tc.cast(x, tc.DataType.FLOAT, saturate=True, bogus=1)
tc.split(x, axis="0")
v: int = tc.__version__
tc.quantize_linear(x)
tc.quantize_linear(x, 0.5, axis="0")
tc.dequantize_linear(x, 0.5, saturate=False)
q: str = tc.dequantize_linear(x, 0.5)
tc.quantize_mx(x)
tc.quantize_mx(x, "mxfp4", axis="0")
c: str = tc.quantize_mx(x, "mxfp4")
tc.dequantize_mx(x, x, "mxfp4", saturate=False)
tc.quantize_nvfp4(x, "nvfp4")
tc.dequantize_nvfp4(x, x)
tc.quantize_absmax(x)
tc.quantize_absmax(x, "int8", block_size=2)
"""


def run_mypy(path, cache):
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-error-summary",
            "--cache-dir",
            cache,
            path,
        ],
        cwd=HERE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
    )


def test_mypy_strict_accepts_typed_usage(tmp_path_factory):
    cache = str(tmp_path_factory.getbasetemp() / "mypy-cache")
    proc = run_mypy(os.path.join(HERE, "typing_usage.py"), cache)
    assert proc.returncode == 0, proc.stdout


def test_mypy_strict_rejects_misuse(tmp_path_factory, tmp_path):
    cache = str(tmp_path_factory.getbasetemp() / "mypy-cache")
    bad = tmp_path / "misuse.py"
    bad.write_text(MISUSES)
    proc = run_mypy(str(bad), cache)
    assert proc.returncode == 1, proc.stdout
    lines = MISUSES.splitlines()
    flagged = {
        int(line.split(":")[1])
        for line in proc.stdout.splitlines()
        if line.startswith(str(bad)) and ": error:" in line
    }
    for i, text in enumerate(lines, start=1):
        if text.startswith(
            (
                "tc.set_num",
                "n: str",
                "tc.cast(x",
                "tc.split",
                "v: int",
                "tc.q",
                "tc.d",
                "q: str",
                "c: str",
            )
        ):
            assert i in flagged, "mypy did not flag line %d %r:\n%s" % (i, text, proc.stdout)
