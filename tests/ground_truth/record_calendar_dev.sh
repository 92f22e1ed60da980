#!/bin/sh
# Re-records calendar_dev_server.jsonl: a throwaway Radicale (PyPI radicale==3.9.0 in /tmp/rec-radicale) seeded with
# two calendars (Work, Personal) and four events of fixed UIDs (two of them weekly series), cal-scheduler-mcp==1.1.3
# (PyPI, in /tmp/rec-calendar_dev) in front of it, its clock frozen by faketime (Debian package) so done_at is fixed.
# Arguments go to record_session: `sh tests/ground_truth/record_calendar_dev.sh --heldout` records heldout/calendar_dev.jsonl.
set -e
rm -rf /tmp/gt-caldev && mkdir -p /tmp/gt-caldev/collections/collection-root
/tmp/rec-radicale/bin/radicale --server-hosts 127.0.0.1:55262 --auth-type none --storage-filesystem-folder /tmp/gt-caldev/collections --logging-level warning > /tmp/gt-caldev.log 2>&1 &
RPID=$!
sleep 3
cd "$(dirname "$0")/../.." && . .venv/bin/activate
SEED='mkdir work personal
printf "{\"tag\": \"VCALENDAR\", \"D:displayname\": \"Work\"}" > work/.Radicale.props
printf "{\"tag\": \"VCALENDAR\", \"D:displayname\": \"Personal\"}" > personal/.Radicale.props
H="BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//Example//Seed//EN\nBEGIN:VEVENT\nDTSTAMP:20261120T120000Z\n"
T="END:VEVENT\nEND:VCALENDAR\n"
printf "${H}UID:1f0c9a52-3d7e-4b8a-9c61-2a4e5b6c7d80\nDTSTART:20261201T090000Z\nDTEND:20261201T093000Z\nRRULE:FREQ=WEEKLY;COUNT=6\nSUMMARY:Weekly 1:1 with Priya\nLOCATION:Room 2.14\n${T}" > work/1f0c9a52-3d7e-4b8a-9c61-2a4e5b6c7d80.ics
printf "${H}UID:6b2d8e41-7a9c-4f35-b0d2-8c1e3f4a5b69\nDTSTART:20261204T173000Z\nDTEND:20261204T193000Z\nSUMMARY:Dinner with Acme Corp\nLOCATION:Trattoria Roma\nDESCRIPTION:Contract renewal talk with Priya and Tom.\n${T}" > work/6b2d8e41-7a9c-4f35-b0d2-8c1e3f4a5b69.ics
printf "${H}UID:9e7f6d5c-4b3a-4291-8e0f-1a2b3c4d5e6f\nDTSTART:20261209T073000Z\nDTEND:20261209T080000Z\nSUMMARY:Dentist appointment\nLOCATION:Dr. Weber, Hauptstrasse 12\n${T}" > personal/9e7f6d5c-4b3a-4291-8e0f-1a2b3c4d5e6f.ics
printf "${H}UID:3c5a7e9b-1d2f-4a6c-8b0e-7f9d1b3c5e7a\nDTSTART:20261203T170000Z\nDTEND:20261203T180000Z\nRRULE:FREQ=WEEKLY;COUNT=8\nSUMMARY:Yoga class\nLOCATION:Studio Lotus\n${T}" > personal/3c5a7e9b-1d2f-4a6c-8b0e-7f9d1b3c5e7a.ics'
CALDAV_BASE_URL=http://127.0.0.1:55262/ CALDAV_USERNAME=ada CALDAV_PASSWORD=dummy CAL_DEFAULT_TZ=Europe/Berlin \
  python -m tests.ground_truth.record_session calendar_dev "$@" --workdir /tmp/gt-caldev/collections/collection-root/ada \
  --setup "$SEED" -- env FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f '2026-11-24 10:00:00' /tmp/rec-calendar_dev/bin/cal-scheduler \
  || STATUS=$?
kill $RPID; wait $RPID 2>/dev/null || true
exit ${STATUS:-0}
