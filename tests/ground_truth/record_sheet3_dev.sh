#!/bin/sh
# Re-records sheet3_dev_server.jsonl: PyPI ironcalc-mcp==0.2.0 (needs Python >= 3.13) in /tmp/rec-sheet3:
#   python3.13 -m venv /tmp/rec-sheet3 && /tmp/rec-sheet3/bin/pip install ironcalc-mcp==0.2.0
# Arguments go to record_session: `sh tests/ground_truth/record_sheet3_dev.sh --heldout` records heldout/sheet3_dev.jsonl.
set -e
cd "$(dirname "$0")/../.." && . .venv/bin/activate
python -m tests.ground_truth.record_session sheet3_dev "$@" --workdir /tmp/gt-sheet3 --setup "python -c \"import openpyxl; wb=openpyxl.Workbook(); ws=wb.active; ws.title='Stock'; [ws.append(r) for r in [['Item','Qty','Unit price'],['Espresso beans 1kg',24,18.5],['Oat milk 1L',60,1.9],['Paper cups 12oz',1500,0.07]]]; wb.save('inventory.xlsx')\"" -- /tmp/rec-sheet3/bin/ironcalc-mcp
