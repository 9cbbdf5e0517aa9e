#!/usr/bin/env bash
# Runs the hand-written generated tests (test/data/generated/<lang>/{pass,fail,nocompile,noinvoke})
# against the fixtures' focal functions, on throwaway copies of the fixtures, with the local executor.
set -euo pipefail
MAIN="$(cd "$(dirname "$0")/../../.." && pwd)"
W=/tmp/xrt-report-capture
cp -r $MAIN/test/fixtures/inventory-go $MAIN/test/fixtures/geometry-rs $MAIN/test/fixtures/textkit-php $MAIN/test/fixtures/bookshelf-rb $W/
node $MAIN/dist/cli.js extract $W/inventory-go $W/geometry-rs $W/textkit-php $W/bookshelf-rb --out $W/tasks.jsonl --no-progress
MAIN=$MAIN python3 - <<'PY'
import json
import os; W='/tmp/xrt-report-capture'; MAIN=os.environ['MAIN']
focal={'go':'Status','rust':'classify_triangle','php':'slugify','ruby':'search'}
ext={'go':'go','rust':'rs','php':'php','ruby':'rb'}
tasks=[json.loads(l) for l in open(f'{W}/tasks.jsonl')]
with open(f'{W}/gens.jsonl','w') as out:
    for lang,fn in focal.items():
        t=next(t for t in tasks if t['language']==lang and t['function_name']==fn)
        for i,name in enumerate(['pass','fail','nocompile','noinvoke']):
            code=open(f'{MAIN}/test/data/generated/{lang}/{name}.{ext[lang]}').read()
            out.write(json.dumps({'id':t['id'],'sample':i,'test_code':code})+'\n')
PY
node $MAIN/dist/cli.js run $W/tasks.jsonl --tests $W/gens.jsonl --executor local --out $W/results.jsonl --no-progress --concurrency 4
