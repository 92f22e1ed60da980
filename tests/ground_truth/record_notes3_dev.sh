#!/bin/sh
# Re-records notes3_dev_server.jsonl: PyPI kaydet[mcp]==0.49.0 (mcp<2) in /tmp/rec-notes3_dev, three entries written by
# its CLI on fixed days, then its clock frozen by faketime (Debian):
#   python -m venv /tmp/rec-notes3_dev && /tmp/rec-notes3_dev/bin/pip install 'kaydet[mcp]==0.49.0' 'mcp>=1.20,<2'
# Arguments go to record_session: `sh tests/ground_truth/record_notes3_dev.sh --heldout` records heldout/notes3_dev.jsonl.
set -e
cd "$(dirname "$0")/../.." && . .venv/bin/activate
SETUP='mkdir -p home/.config/kaydet store index && printf '"'"'[SETTINGS]\nstorage_dir = /tmp/gt-notes3/store\nday_file_pattern = %%Y-%%m-%%d.txt\nday_title_pattern = %%Y/%%m/%%d/ - %%A\nlog_dir = /tmp/gt-notes3/index\neditor = vim\n'"'"' > home/.config/kaydet/config.ini && export HOME=/tmp/gt-notes3/home FAKETIME_DONT_FAKE_MONOTONIC=1 && faketime '"'"'2026-11-18 09:15:00'"'"' /tmp/rec-notes3_dev/bin/kaydet '"'"'Kickoff with Harbor Logistics: agreed on the 2027 freight dashboard scope #harbor #meeting client:harbor'"'"' && faketime '"'"'2026-11-19 14:40:00'"'"' /tmp/rec-notes3_dev/bin/kaydet '"'"'Fixed the CSV import bug that dropped rows with quoted commas #bug #importer time:2h'"'"' && faketime '"'"'2026-11-20 11:05:00'"'"' /tmp/rec-notes3_dev/bin/kaydet '"'"'Read the Postgres 17 release notes; logical replication of sequences looks useful #reading'"'"''
python -m tests.ground_truth.record_session notes3_dev "$@" --workdir /tmp/gt-notes3 --setup "$SETUP" -- \
  env HOME=/tmp/gt-notes3/home FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f '2026-11-24 10:00:00' /tmp/rec-notes3_dev/bin/kaydet-mcp
