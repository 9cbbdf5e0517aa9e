"""Scores of rank_bm25.BM25Okapi (defaults k1=1.5, b=0.75, epsilon=0.25, and one non-default
setting) on corpus.json, with Python's str.split() as the tokenizer. Prints JSON to stdout."""
import json
import sys

import rank_bm25
from rank_bm25 import BM25Okapi

with open(sys.argv[1]) as f:
    data = json.load(f)
corpus = [d.split() for d in data["documents"]]
out = {"rank_bm25_version": getattr(rank_bm25, "__version__", "0.2.2"), "settings": []}
for params in [{}, {"k1": 1.2, "b": 0.5, "epsilon": 0.5}]:
    bm25 = BM25Okapi(corpus, **params)
    out["settings"].append({
        "params": params,
        "avgdl": bm25.avgdl,
        "average_idf": bm25.average_idf,
        "idf": list(bm25.idf.items()),  # pairs: JSON objects would lose the order for keys like "0"
        "scores": [[float(s) for s in bm25.get_scores(q.split())] for q in data["queries"]],
    })
json.dump(out, sys.stdout, indent=1)
print()
