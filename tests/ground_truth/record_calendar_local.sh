#!/bin/sh
# Re-records calendar_local_server.jsonl: a throwaway Radicale (PyPI radicale==3.9.0 in /tmp/rec-radicale)
# seeded with two events and a todo of fixed UIDs, caldav-mcp@0.10.0 (npm, in /tmp/rec-calendar_local) in front of it.
# Arguments go to record_session: `sh tests/ground_truth/record_calendar_local.sh --heldout` records heldout/calendar_local.jsonl.
set -e
rm -rf /tmp/gt-radicale && mkdir -p /tmp/gt-radicale/collections/collection-root/ada
/tmp/rec-radicale/bin/radicale --server-hosts 127.0.0.1:55232 --auth-type none --storage-filesystem-folder /tmp/gt-radicale/collections --logging-level warning > /tmp/gt-radicale/log 2>&1 &
RPID=$!
sleep 3
cd "$(dirname "$0")/../.." && . .venv/bin/activate
CALDAV_BASE_URL=http://127.0.0.1:55232/ CALDAV_USERNAME=ada CALDAV_PASSWORD=dummy python -m tests.ground_truth.record_session calendar_local "$@" --workdir /tmp/gt-radicale/collections/collection-root/ada/work --setup 'printf "{\"tag\": \"VCALENDAR\", \"D:displayname\": \"Work\"}" > .Radicale.props && printf "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//Example//Seed//EN\nBEGIN:VEVENT\nUID:a3f1c2d4-5b6e-4f70-8a91-0b2c3d4e5f60\nDTSTAMP:20261120T120000Z\nDTSTART:20261202T090000Z\nDTEND:20261202T091500Z\nSUMMARY:Team standup\nLOCATION:Zoom\nEND:VEVENT\nEND:VCALENDAR\n" > a3f1c2d4-5b6e-4f70-8a91-0b2c3d4e5f60.ics && printf "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//Example//Seed//EN\nBEGIN:VEVENT\nUID:b7e2d3c4-6a5f-4e81-9b02-1c3d4e5f6a71\nDTSTAMP:20261120T120000Z\nDTSTART:20261204T183000Z\nDTEND:20261204T203000Z\nSUMMARY:Dinner with Acme Corp\nLOCATION:Trattoria Roma\nDESCRIPTION:Contract renewal talk with Priya and Tom.\nEND:VEVENT\nEND:VCALENDAR\n" > b7e2d3c4-6a5f-4e81-9b02-1c3d4e5f6a71.ics && printf "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//Example//Seed//EN\nBEGIN:VTODO\nUID:c9d8e7f6-1a2b-4c3d-8e4f-5a6b7c8d9e01\nDTSTAMP:20261120T120000Z\nDUE:20261205T170000Z\nSUMMARY:Submit expense report\nSTATUS:NEEDS-ACTION\nEND:VTODO\nEND:VCALENDAR\n" > c9d8e7f6-1a2b-4c3d-8e4f-5a6b7c8d9e01.ics' -- /tmp/rec-calendar_local/node_modules/.bin/caldav-mcp || true
kill $RPID; wait $RPID 2>/dev/null || true
