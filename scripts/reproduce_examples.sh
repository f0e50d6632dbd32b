#!/usr/bin/env bash
# Build the example outputs of docs/reproduce.md into docs/examples/reproduce/ and
# measure each run (wall and CPU seconds, peak memory) with /usr/bin/time.
#
#   bash scripts/reproduce_examples.sh [PAPER...]      # PAPER: innovation nrg twist gawm
#
# The outputs (about 5.5 MB) are generated, so they are not in the repository
# (docs/examples/ is in .gitignore; see docs/packaging.md): run this to look at them.
# Needs the real data: IRMETA_DATA (default ../shared/data, from the repository root),
# and the irmeta command (IRMETA, default `irmeta` on PATH). Figures as PNG at 100 dpi,
# no SVG, to keep the folders small.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${IRMETA_DATA:-../shared/data}
IRMETA=${IRMETA:-irmeta}
if [ ! -d "$DATA/trec-dl-2021-passage" ]; then
  echo "reproduce_examples.sh: no data in $DATA (set IRMETA_DATA)" >&2
  exit 2
fi
OUT=docs/examples/reproduce
mkdir -p "$OUT"
DL21_Q=$DATA/trec-dl-2021-passage/qrels/qrels.dl21-passage.txt
DL21_R=$(ls $DATA/trec-dl-2021-passage/runs/*.gz)
EH_Q=$DATA/clef-ehealth-2016-irtask2/qrels/task2.qrels
EH_R=$(ls $DATA/clef-ehealth-2016-irtask2/runs/*.gz)
GROUPS_FILE=${TMPDIR:-/tmp}/dl21.groups
python scripts/dl21_groups.py $DATA/trec-dl-2021-passage/runs "$GROUPS_FILE" >&2
export IRMETA_NO_PROGRESS=1
COMMON="--no-svg --dpi 100 --no-progress"
papers=${*:-innovation nrg twist gawm}

run() {  # name, then the irmeta arguments
  local name=$1; shift
  rm -rf "$OUT/$name"
  /usr/bin/time -f "$name: %e s wall, %U s user + %S s sys CPU, %M KB max RSS" \
    $IRMETA reproduce "$@" -o "$OUT/$name" $COMMON
}

for paper in $papers; do
  case $paper in
    innovation)
      run innovation-dl21 innovation -l 1 "$DL21_Q" $DL21_R
      run innovation-ehealth innovation -l 1 "$EH_Q" $EH_R ;;
    nrg)
      run nrg-dl21 nrg --groups "$GROUPS_FILE" "$DL21_Q" $DL21_R
      run nrg-ehealth nrg "$EH_Q" $EH_R ;;
    twist)
      run twist-dl21 twist "$DL21_Q" $DL21_R
      run twist-ehealth twist "$EH_Q" $EH_R ;;
    gawm)
      run gawm-dl21 gawm -m AP "$DL21_Q" $DL21_R
      run gawm-ehealth gawm -m AP "$EH_Q" $EH_R
      run gawm-web2010ap gawm --matrix $DATA/trec-2010-web-adhoc-score-matrices/web2010ap.csv ;;
  esac
done
du -sh $OUT/* >&2
