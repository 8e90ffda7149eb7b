"""Give an exported face classifier a second output: its embedding.

Why: deck prototypes (``companion/vision/prototypes.py``) compare a crop with a
deck's own pictures by the classifier's pooled features, the layer before its last.
Adding them as an output of the same ONNX graph costs nothing at the table: the
one run that reads the face gives both. The graph is otherwise unchanged (a test
checks the face probabilities are the same, bit for bit).

Run: python -m companion.training.embedding models/taki-cls-yolov8n.onnx
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..vision.prototypes import EMBEDDING_OUTPUT


def is_classifier(path: Path) -> bool:
    """Whether an ONNX export says it is a classifier (ultralytics' metadata)."""
    import onnx

    meta = {p.key: p.value for p in onnx.load(str(path), load_external_data=False).metadata_props}
    return meta.get("task") == "classify"


def add_embedding_output(path: Path) -> Path:
    """Name the input of the classifier head's last linear layer as the output
    ``embedding`` (YOLO-cls: Flatten after the global pool, before Gemm). Idempotent."""
    import onnx
    from onnx import TensorProto, helper

    model = onnx.load(str(path))
    graph = model.graph
    if any(o.name == EMBEDDING_OUTPUT for o in graph.output):
        return path
    gemm = [n for n in graph.node if n.op_type == "Gemm"]
    if len(gemm) != 1:
        raise ValueError(f"{path}: expected one Gemm (the classifier's last layer), found {len(gemm)}")
    pooled = gemm[0].input[0]
    weight = next(i for i in graph.initializer if i.name == gemm[0].input[1])
    transposed = any(a.name == "transB" and a.i == 1 for a in gemm[0].attribute)
    dim = weight.dims[1] if transposed else weight.dims[0]
    graph.node.append(helper.make_node("Identity", [pooled], [EMBEDDING_OUTPUT], name="embedding_out"))
    graph.output.append(helper.make_tensor_value_info(EMBEDDING_OUTPUT, TensorProto.FLOAT, [1, int(dim)]))
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(add_embedding_output(Path(arg)))
