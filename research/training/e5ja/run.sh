#!/bin/sh
# Issue 59 item 4: 0.3.3 trained further on Japanese, English NLI alongside and a replay of the
# other languages (plan and sizes: research/notes/citelens-e5-multilingual-nli.md, "Japanese trained
# further"). Resumable: train_nli.py checkpoints to $C/train every 25 steps (weights, optimiser,
# scheduler, step; the data order is rebuilt from the seed and checked against the checkpoint's);
# rerun this script to go on. From the repository root:
#   nice -n 5 sh research/training/e5ja/run.sh >> ~/.cache/citelens-train/e5-ja/train.log 2>&1
set -eu
C=${C:-$HOME/.cache/citelens-train/e5-ja}
PY=${PY:-/work/main/.venv/bin/python}
S=$C/splits/multilingual-ja
D=${D:-../shared/data}
[ -d "$S" ] || { $PY -m research.data.multilingual_splits --out $C/splits/multilingual \
    && $PY -m research.data.japanese_parts --splits $C/splits/multilingual --out $S; }
[ -d "$C/e5-0.3.3-fp32" ] || $PY -m research.training.onnx_to_torch models/citelens-e5-multilingual-nli \
    --out $C/e5-0.3.3-fp32 --min-agreement 0.92 --check 300
R=50
exec $PY -u -m research.training.train_nli --base $C/e5-0.3.3-fp32 --out $C/train --stages 1 --threads 2 \
    --freeze-embeddings --save-every 25 --log-every 5 --snli-limit 300 --stage1-epochs 1 --stage1-lr 3e-5 \
    --mix $S/ja-jsick.train.jsonl --mix $S/ja-janli.train.jsonl:1:1800 \
    --mix $D/nli_more/lingnli_train.jsonl.gz:1:500 --mix $D/nli_extra/cad_snli_train.jsonl.gz:1:200 \
    --mix $D/nli_more/conjnli_adversarial_train.jsonl.gz:1:75 --mix $D/nli_more/negation_nli.jsonl.gz:1:75 \
    --mix $D/nli_more/fever_dev_rte.jsonl.gz:1:75 --mix $D/nli_extra/hans_generated.jsonl.gz:1:75 \
    --mix $S/en.train.jsonl:1:$R --mix $S/fr.train.jsonl:1:$R --mix $S/es.train.jsonl:1:$R \
    --mix $S/de.train.jsonl:1:$R --mix $S/ru.train.jsonl:1:$R --mix $S/zh.train.jsonl:1:$R \
    --mix $S/pt.train.jsonl:1:$R --mix $S/id.train.jsonl:1:$R --mix $S/ar.train.jsonl:1:$R \
    --mix $S/bg.train.jsonl:1:$R --mix $S/el.train.jsonl:1:$R --mix $S/hi.train.jsonl:1:$R \
    --mix $S/ko.train.jsonl:1:$R --mix $S/sw.train.jsonl:1:$R --mix $S/th.train.jsonl:1:$R \
    --mix $S/tr.train.jsonl:1:$R --mix $S/ur.train.jsonl:1:$R --mix $S/vi.train.jsonl:1:$R \
    --mix $S/cross.train.jsonl:1:200
