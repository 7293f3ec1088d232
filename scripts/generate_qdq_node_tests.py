#!/usr/bin/env python3
"""Writes ONNX's backend node tests of QuantizeLinear and DequantizeLinear to a folder.

The cases are onnx's own: `onnx.backend.test.case.node.collect_testcases()` runs the
generators of onnx/backend/test/case/node/quantizelinear.py and dequantizelinear.py
(each single-node case of either operator; onnx stopped shipping their data; `backend-test-tools generate-data` writes model tests
only). Each case is written in the layout of onnx's stored node tests: <name>/model.onnx and
<name>/test_data_set_<i>/{input,output}_<j>.pb (numpy_helper.from_array, which packs the
4-, 2- and 6-bit types as onnx does).

Usage: python generate_qdq_node_tests.py OUTPUT_DIR   (with onnx installed; the folder
test/data/onnx-qdq-node-tests was written with onnx 1.23.2, see its README.md)
"""

import os
import sys

import onnx
from onnx import numpy_helper
from onnx.backend.test.case import node


def write_case(case, out_dir):
    case_dir = os.path.join(out_dir, case.name)
    os.makedirs(case_dir, exist_ok=True)
    with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
        f.write(case.model.SerializeToString())
    for i, (inputs, outputs) in enumerate(case.data_sets):
        data_dir = os.path.join(case_dir, f"test_data_set_{i}")
        os.makedirs(data_dir, exist_ok=True)
        for kind, values, infos in (
            ("input", inputs, case.model.graph.input),
            ("output", outputs, case.model.graph.output),
        ):
            for j, value in enumerate(values):
                if isinstance(value, onnx.TensorProto):
                    proto = value
                else:
                    proto = numpy_helper.from_array(value, infos[j].name)
                with open(os.path.join(data_dir, f"{kind}_{j}.pb"), "wb") as f:
                    f.write(proto.SerializeToString())


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    names = []
    # collect_testcases runs every generator once per process and keeps the list.
    for case in node.collect_testcases(None):
        ops = {n.op_type for n in case.model.graph.node}
        if ops in ({"QuantizeLinear"}, {"DequantizeLinear"}):
            write_case(case, out_dir)
            names.append(case.name)
    print(f"onnx {onnx.__version__}: wrote {len(names)} cases to {out_dir}")
    for name in sorted(names):
        print(" ", name)


if __name__ == "__main__":
    main()
