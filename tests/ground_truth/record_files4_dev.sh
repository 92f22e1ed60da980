#!/bin/sh
# Re-records files4_dev_server.jsonl: npm @wonderwhy-er/desktop-commander@0.2.52 in /tmp/rec-dc, its clock frozen by
# faketime (Debian) and its home (config, usage counters) in a throwaway directory:
#   PUPPETEER_SKIP_DOWNLOAD=1 npm install --ignore-scripts --prefix /tmp/rec-dc @wonderwhy-er/desktop-commander@0.2.52
# Arguments go to record_session: `sh tests/ground_truth/record_files4_dev.sh --heldout` records heldout/files4_dev.jsonl.
set -e
cd "$(dirname "$0")/../.." && . .venv/bin/activate
rm -rf /tmp/gt-files4-home && mkdir -p /tmp/gt-files4-home
python -m tests.ground_truth.record_session files4_dev "$@" --workdir /tmp/gt-files4 --setup "printf '# Vendor review\nStatus: draft\nOwner: Marta\nBudget: 9000\n\nNext step: send the contract to legal.\n' > notes.md && printf '2026-11-20 09:14:02 INFO worker started\n2026-11-20 09:15:47 WARN queue depth 120\n2026-11-20 09:16:03 INFO job 77 done\n2026-11-20 10:02:11 ERROR upstream timeout\n2026-11-20 10:05:30 INFO job 78 done\n' > server.log && touch -d '2026-11-20 10:00:00' notes.md server.log" -- env HOME=/tmp/gt-files4-home FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f '2026-11-24 10:00:00' /tmp/rec-dc/node_modules/.bin/desktop-commander
