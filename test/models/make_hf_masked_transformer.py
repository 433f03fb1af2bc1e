"""Two layers of the transformer block of make_transformer.py with an int64
attention_mask input [batch, seq] (1 keeps a key, 0 drops it) in the form of
Hugging Face's BERT export: unsqueezed, expanded to [batch, 1, seq, seq],
cast to float, 1 - mask, the dropped keys set to float32's lowest value by a
Cast to bool and a Where; computed once, added to the scores of both layers.

    python make_hf_masked_transformer.py OUT.onnx [--external-data]
"""
from make_transformer import make_transformer
from model_common import main

if __name__ == "__main__":
    main(lambda: make_transformer(mask="hf", layers=2), __doc__)
