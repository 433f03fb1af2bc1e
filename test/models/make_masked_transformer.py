"""The transformer block of make_transformer.py with an attention_mask input
[batch, seq] (1 keeps a key, 0 drops it): the encoder whose seq dim padding
with a zero mask leaves exact.

    python make_masked_transformer.py OUT.onnx [--external-data]
"""
from make_transformer import make_transformer
from model_common import main

if __name__ == "__main__":
    main(lambda: make_transformer(mask=True), __doc__)
